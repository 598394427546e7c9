"""`ragbot doctor`'s LLM check: what the endpoint behind LLM_BASE_URL really does.

Lists the models (`GET /models`), then sends real chat requests, as ragbot
will: a short answer (is chat working, how long it takes, is LLM_MODEL
accepted), a structured one stepping down json_schema → json_object → plain
text as ragbot's ladder does, and a long answer under a small `max_tokens`
(is the token cap honoured). Says in plain words what is wrong: nothing
listening, a base URL without `/v1`, a key refused, a model the server will
not answer with. Only problems that stop ragbot from using the model fail;
a weaker format, an ignored cap or a server answering under another model
name are warnings.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from graph.models import token_cap_field
from graph.structured import FORMATS, rejects_format

Level = Literal["ok", "warn", "fail"]
CAP_PROBE = 8  # max_tokens of the long-answer request: a server honouring it stops there
_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}


@dataclass(frozen=True)
class Finding:
    """One line of the report: ok, a warning or a problem, and what to do."""

    level: Level
    text: str

    @property
    def ok(self) -> bool:
        """False only for a problem (a warning still lets ragbot use the model)."""
        return self.level != "fail"


@dataclass
class _Reply:
    """One chat request's outcome: the body on success, else the status and error text."""

    status: int
    body: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    seconds: float = 0.0


class _Chat:
    """Sends chat requests to the endpoint with its key and model."""

    def __init__(self, client: httpx.AsyncClient, base_url: str, model: str) -> None:
        self._client = client
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model

    async def send(self, prompt: str, max_tokens: int, **extra: Any) -> _Reply:
        body = {
            "model": self._model,
            "messages": [{"role": "user", "content": prompt}],
            # the cap in the field ragbot itself sends to this endpoint (graph.models)
            token_cap_field(self._url): max_tokens,
            "temperature": 0,
            **extra,
        }
        started = time.perf_counter()
        try:
            reply = await self._client.post(self._url, json=body)
        except httpx.TimeoutException:
            return _Reply(0, error="no reply in time", seconds=time.perf_counter() - started)
        except httpx.HTTPError as exc:
            return _Reply(0, error=type(exc).__name__)
        seconds = time.perf_counter() - started
        if reply.status_code != 200:
            return _Reply(reply.status_code, error=reply.text[:300], seconds=seconds)
        try:
            data = reply.json()
        except ValueError:
            return _Reply(200, error="the reply is not JSON", seconds=seconds)
        if not isinstance(data, dict) or not data.get("choices"):
            return _Reply(200, error="the reply has no choices", seconds=seconds)
        return _Reply(200, body=data, seconds=seconds)


def _failure(reply: _Reply) -> str:
    return f"HTTP {reply.status}: {reply.error}" if reply.status else reply.error


async def probe_llm(
    base_url: str | None, api_key: str | None, model: str | None, timeout: float = 10.0
) -> list[Finding]:
    """What is right and wrong with the configured LLM endpoint."""
    if not base_url or not model:
        return [Finding("ok", "no LLM configured (LLM_BASE_URL, LLM_MODEL): no-LLM mode")]
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    async with httpx.AsyncClient(timeout=timeout, headers=headers) as client:
        found, served = await _list_models(client, base_url, timeout)
        if any(f.level == "fail" for f in found):
            return found
        chat = _Chat(client, base_url, model)
        found += await _chat_checks(chat, base_url, model, served)
    return found


async def _list_models(
    client: httpx.AsyncClient, base_url: str, timeout: float
) -> tuple[list[Finding], list[str] | None]:
    """The reachability findings and the model names listed (None: no list)."""
    url = base_url.rstrip("/") + "/models"
    try:
        reply = await client.get(url)
    except httpx.ConnectError:
        return [
            Finding("fail", f"nothing is listening at {base_url}: is the model server running?")
        ], None
    except httpx.TimeoutException:
        return [Finding("fail", f"{base_url} did not answer within {timeout:g} s")], None
    except httpx.HTTPError as exc:
        return [Finding("fail", f"cannot reach {base_url}: {type(exc).__name__}")], None
    if reply.status_code == 404:
        hint = (
            "; LLM_BASE_URL usually ends with /v1 (e.g. http://localhost:8080/v1)"
            if not base_url.rstrip("/").endswith("/v1")
            else ""
        )
        return [
            Finding("fail", f"{url} answered 404: not an OpenAI-compatible API root{hint}")
        ], None
    if reply.status_code in (401, 403):
        text = f"{base_url} refused the key ({reply.status_code}): check LLM_API_KEY"
        return [Finding("fail", text)], None
    if reply.status_code != 200:
        # some servers list no models: the chat requests below still tell
        return [Finding("warn", f"{url} answered HTTP {reply.status_code}; trying a chat")], None
    try:
        served = [str(m.get("id")) for m in reply.json().get("data", [])]
    except (ValueError, AttributeError):
        text = f"{url} did not answer with a model list: is this the API root?"
        return [Finding("fail", text)], None
    return [Finding("ok", f"{base_url} answers ({len(served)} model(s) listed)")], served


async def _chat_checks(
    chat: _Chat, base_url: str, model: str, served: list[str] | None
) -> list[Finding]:
    """Short answer (latency, model name), structured output and the token cap."""
    found: list[Finding] = []
    short = await chat.send("Reply with the single word OK.", 16)
    listed = served is None or not served or model in served
    if short.status == 200:
        if listed:
            found.append(Finding("ok", f"model {model!r} is served"))
        else:
            names = ", ".join(served[:5]) if served else ""
            found.append(
                Finding(
                    "warn",
                    f"the server lists {names}, not LLM_MODEL={model!r}, but answered a request"
                    " for it (it answers with the model it has loaded)",
                )
            )
        found.append(Finding("ok", f"chat works: a short answer took {short.seconds:.2f} s"))
    elif short.status in (400, 404) and not listed:
        names = ", ".join(served[:5]) if served else ""
        found.append(
            Finding("fail", f"the server does not serve LLM_MODEL={model!r}; it lists: {names}")
        )
        return found
    fmt, refused = await _structured(chat)
    if short.status != 200:
        # one failed request is a warning; every one failing means the model cannot be used
        level: Level = "fail" if fmt is None else "warn"
        found.append(Finding(level, f"a chat request to {base_url} failed ({_failure(short)})"))
    if fmt is None:
        if short.status != 200:
            found.append(Finding("fail", "every chat request fails: the model cannot be used"))
        else:
            found.append(Finding("warn", f"a structured request failed ({refused})"))
        return found
    found.append(_format_finding(fmt, refused))
    found.append(await _cap_finding(chat))
    return found


async def _structured(chat: _Chat) -> tuple[str | None, str]:
    """The strictest response format the endpoint answers (None: none), and what was refused."""
    refused: list[str] = []
    for fmt in FORMATS:
        extra: dict[str, Any] = {}
        if fmt == "json_schema":
            schema = {"name": "probe", "schema": _SCHEMA}
            extra = {"response_format": {"type": "json_schema", "json_schema": schema}}
        elif fmt == "json_object":
            extra = {"response_format": {"type": "json_object"}}
        reply = await chat.send('Answer with the JSON object {"ok": true}.', 32, **extra)
        if reply.status == 200:
            return fmt, "; ".join(refused)
        if fmt != "none" and rejects_format(reply.status, reply.error):
            refused.append(f"{fmt}: HTTP {reply.status}")
            continue
        return None, _failure(reply)
    return None, "; ".join(refused)


def _format_finding(fmt: str, refused: str) -> Finding:
    why = f" ({refused})" if refused else ""
    if fmt == "json_schema":
        return Finding("ok", "structured output: json_schema")
    if fmt == "json_object":
        return Finding("ok", f"structured output: json_object, JSON mode{why}")
    return Finding(
        "warn",
        f"structured output: plain text only{why}; replies are parsed leniently,"
        " and a small model may not keep to the JSON",
    )


async def _cap_finding(chat: _Chat) -> Finding:
    """Whether a long answer asked for under max_tokens=CAP_PROBE stops there."""
    reply = await chat.send(
        "Write a long story of at least three hundred words about a city library.", CAP_PROBE
    )
    if reply.status != 200:
        return Finding("warn", f"could not test the token cap ({_failure(reply)})")
    usage = reply.body.get("usage") or {}
    written = usage.get("completion_tokens")
    choice = reply.body["choices"][0]
    if not isinstance(written, int):
        text = str((choice.get("message") or {}).get("content") or "")
        if choice.get("finish_reason") == "length":
            return Finding("ok", f"the token cap is honoured (max_tokens={CAP_PROBE} cut it short)")
        return Finding(
            "warn",
            f"could not tell whether max_tokens is honoured (no usage; {len(text.split())} words)",
        )
    if written <= CAP_PROBE:
        return Finding(
            "ok", f"the token cap is honoured (max_tokens={CAP_PROBE}: {written} tokens)"
        )
    return Finding(
        "warn",
        f"the token cap is ignored: max_tokens={CAP_PROBE} gave {written} tokens,"
        " so LLM_MAX_TOKENS will not bound replies",
    )
