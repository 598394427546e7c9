"""Calling the model: one bounded attempt at a time, retried after timeouts and provider errors.

- `LLM_TIMEOUT` bounds each attempt's wait for the model's reply (for a
  streamed answer: for its first token; once text is on the user's screen the
  stream is not cut by a clock, only by the HTTP client's read timeout).
- `LLM_MAX_RETRIES` more attempts follow a timeout or a provider error (HTTP
  status, connection, malformed stream) but never a stream that already showed
  text, nor an answer that will not change on retry (`is_deterministic`: a 4xx
  other than 408/409/429, a 500 refusing the response format). Every request
  sent counts in `llm_calls`.
- Only provider errors fall back: a programming error (TypeError, KeyError...)
  raises, so tests see it instead of a silently worse answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from graph.structured import error_text, rejects_format

logger = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class CallLimits:
    """Seconds each attempt may wait (LLM_TIMEOUT) and further attempts (LLM_MAX_RETRIES)."""

    timeout: float = 30.0
    retries: int = 0
    # the step bounds its own wait below LLM_TIMEOUT (graph.entry_check): said so in logs
    own_limit: bool = False


class StreamCutOffError(Exception):
    """The model's stream ended without saying it had finished (or ran out of tokens)."""


@lru_cache(maxsize=1)
def provider_errors() -> tuple[type[BaseException], ...]:
    """What a provider can throw: HTTP statuses, connections, timeouts, cut streams.

    Imported on first use: the openai client costs most of a second to import,
    and commands that never call a model (`ragbot docs list`) should not pay it.
    """
    import httpx
    import openai

    return (openai.APIError, httpx.HTTPError, TimeoutError, StreamCutOffError)


def explain(step: str, exc: BaseException, limits: CallLimits) -> str:
    """What went wrong with an LLM call and what to do, in one line (no traceback)."""
    import httpx
    import openai

    if isinstance(exc, TimeoutError | openai.APITimeoutError) and limits.own_limit:
        return f"LLM {step}: no reply within its own limit of {limits.timeout:g} s"
    if isinstance(exc, TimeoutError | openai.APITimeoutError):
        return (
            f"LLM {step}: no reply within LLM_TIMEOUT={limits.timeout:g} s (a slow model or a"
            " busy server: raise LLM_TIMEOUT or serve fewer users at once)"
        )
    if isinstance(exc, openai.NotFoundError):
        return (
            f"LLM {step}: the endpoint said 404 ({exc.message}); check LLM_MODEL and that"
            " LLM_BASE_URL ends with /v1"
        )
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return f"LLM {step}: the endpoint refused the key ({exc.message}); check LLM_API_KEY"
    if isinstance(exc, openai.APIConnectionError | httpx.ConnectError):
        return f"LLM {step}: cannot reach LLM_BASE_URL ({exc}); is the model server running?"
    if isinstance(exc, StreamCutOffError):
        return f"LLM {step}: {exc}"
    detail = str(exc).strip() or "no details"
    return f"LLM {step} failed ({type(exc).__name__}: {detail[:300]})"


def is_deterministic(exc: BaseException) -> bool:
    """True for a provider answer that asking again would only repeat.

    A 4xx says the request itself is wrong (bad key, unknown model, refused
    format), except 408 (timeout), 409 (conflict) and 429 (rate limit), which
    pass; a 500 naming the response format is llama_cpp.server refusing
    `json_schema`, just as deterministic.
    """
    import openai

    if not isinstance(exc, openai.APIStatusError):
        return False
    status = exc.status_code
    if 400 <= status < 500:
        return status not in (408, 409, 429)
    return rejects_format(status, error_text(exc))


async def call_with_retries(
    step: str,
    attempt: Callable[[], Awaitable[T]],
    limits: CallLimits,
    may_retry: Callable[[], bool] = lambda: True,
) -> tuple[T | None, int]:
    """The first attempt's result that succeeds, and how many requests were sent.

    None after the last failed attempt (the caller falls back); `may_retry`
    False stops early (an answer already on screen is not asked for again).
    """
    calls = 0
    total = limits.retries + 1
    for number in range(1, total + 1):
        calls += 1
        try:
            return await attempt(), calls
        except provider_errors() as exc:
            again = (
                number < total
                and may_retry()
                and not isinstance(exc, StreamCutOffError)
                and not is_deterministic(exc)
            )
            what = f"retrying ({number + 1} of {total})" if again else "using the fallback"
            logger.warning("%s; %s", explain(step, exc, limits), what)
            if not again:
                break
    return None, calls


def in_body(llm: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's keywords with `response_format` moved into the request body as is (the
    same JSON on the wire).

    Given as `response_format`, langchain-openai goes through the SDK's structured
    helpers: streamed, they rebuild the whole reply so far and parse it as partial JSON
    on every chunk (the answer's stream cost more CPU than anything else in a turn);
    not streamed, a reply cut by the token cap raises the SDK's own error instead of
    coming back as text the caller can refuse and fall back from.
    """
    if "response_format" not in kwargs:
        return kwargs
    moved = dict(kwargs)
    # a call's extra_body replaces the model's own, which holds the token cap: merged
    body = {**(getattr(llm, "extra_body", None) or {}), **(moved.pop("extra_body", None) or {})}
    moved["extra_body"] = {**body, "response_format": moved.pop("response_format")}
    return moved


async def invoke(llm: Any, messages: list[Any], timeout: float, **kwargs: Any) -> Any:
    """One request whose reply must arrive within `timeout` (the request is cancelled after)."""
    return await asyncio.wait_for(llm.ainvoke(messages, **in_body(llm, kwargs)), timeout)


async def stream_text(
    llm: Any,
    messages: list[Any],
    timeout: float,
    on_token: Callable[[str], None],
    **kwargs: Any,
) -> str:
    """Stream one reply; `timeout` bounds the wait for its first token only.

    Raises StreamCutOffError when the stream ends without a finish reason or
    because it hit the token limit: the text is incomplete.
    """
    parts: list[str] = []
    finish: str | None = None
    deadline = asyncio.timeout(timeout)
    async with deadline:
        async for chunk in llm.astream(messages, **in_body(llm, kwargs)):
            finish = (chunk.response_metadata or {}).get("finish_reason") or finish
            piece = str(chunk.content)
            if not piece:
                continue
            if not parts:
                deadline.reschedule(None)  # text is on screen: no clock cuts it off now
            parts.append(piece)
            on_token(piece)
    if finish is None or finish == "length":
        reason = "hit LLM_MAX_TOKENS" if finish == "length" else "ended without a finish reason"
        raise StreamCutOffError(f"the answer stream {reason}: the text is incomplete")
    return "".join(parts)
