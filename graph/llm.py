"""The two LLM steps (plan, synthesise) over any langchain chat model.

Each returns its result, or None when the model fails, times out or sends
something unusable (the calling node then uses its deterministic fallback, so
the user always gets a reply), together with the number of requests sent.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError

from graph.focus import offered
from graph.llm_client import CallLimits, call_with_retries, invoke, stream_text
from graph.prompts import load
from graph.quotes import passage_sentences
from graph.structured import FormatLadder, is_format_rejection, parse_json, response_format

logger = logging.getLogger(__name__)
LANGUAGE_NAMES = {
    "en": "English",
    "zh-hant": "Traditional Chinese (繁體中文)",
    "zh-hans": "Simplified Chinese (简体中文)",
}
_LABEL = re.compile(r"^(?:query|search|alternate|查询|查詢|搜索|搜尋)\s*\d*\s*[:：]\s*", re.I)
T = TypeVar("T")
# plan (or the FAQ entry check, graph.entry_check) + answer: a turn's requests, retries
# after provider errors aside (docs/answering.md)
CALLS_PER_TURN = 2
# the answer's token cap (below LLM_MAX_TOKENS): a claim cites its sentence by id, and
# synth.v10 asks for one claim (a second only when one sentence does not hold the answer),
# so one claim and the JSON around it take about 30-70 tokens (a real 1.5B model's
# replies: 30-60 tokens, 2026-11-29); a reply cut here keeps the claims it finished
# (graph.llm_answer), and on one shared CPU thread each token written is a third of a
# second of the turn, so a model running on past its answer is cut short
ANSWER_MAX_TOKENS = 112
_CAP_FIELDS = ("max_tokens", "max_completion_tokens")
_FENCE = re.compile(r"</?\s*(?:sources|question)\s*>", re.IGNORECASE)


class PlannerOutput(BaseModel):
    """The planner's structured output."""

    task_type: Literal[
        "simple_faq", "form_download", "conversation_followup", "out_of_scope", "greeting"
    ]
    should_retrieve: bool
    query: str = ""
    alternates: list[str] = Field(default_factory=list, max_length=4)


class SynthOutput(BaseModel):
    """The synthesis call's structured output (synth.v3): whether the sources answer, and
    the answer."""

    answerable: bool
    answer: str = ""
    citations: list[int] = Field(default_factory=list)


class CitedClaim(BaseModel):
    """One claim of an answer and the id(s) of the source sentence(s) it rests on ("2.3")."""

    sentence: str | list[str]
    claim: str


class SynthSentences(BaseModel):
    """The synthesis call's structured output (synth.v6 to v8): whether the sources answer, and
    the answer as claims, each citing a numbered source sentence."""

    answerable: bool
    claims: list[CitedClaim] = Field(default_factory=list)


def _history_messages(history: list[dict[str, str]]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for m in history:
        out.append(HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"]))
    return out


class _Rejection:
    """Whether the last request failed because the server refused its response format."""

    rejected = False
    why = ""

    async def watch(self, request: Awaitable[T], fmt: str) -> T:
        try:
            return await request
        except Exception as exc:
            self.rejected = fmt != "none" and is_format_rejection(exc)
            if self.rejected:
                self.why = _short_reason(exc)
            raise


def _short_reason(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    return f"HTTP {status}" if status else type(exc).__name__


async def structured_call(
    step: str,
    ladder: FormatLadder,
    model: type[BaseModel],
    send: Callable[[dict[str, Any]], Awaitable[T]],
    limits: CallLimits,
    may_retry: Callable[[], bool] = lambda: True,
    budget: int = 1,
) -> tuple[T | None, int]:
    """`send(request kwargs)` with the strictest response format the endpoint accepts.

    A refused format (400, 422, a 500 naming it) steps the ladder down for
    every later turn too; this step asks again in the weaker format only
    while it has sent fewer than `budget` requests, so learning the endpoint
    never takes a turn past its call budget (the step falls back instead).
    Each request counts in the calls returned.
    """
    calls = 0
    while True:
        fmt = ladder.current()
        seen = _Rejection()

        def attempt(fmt: str = fmt, seen: _Rejection = seen) -> Awaitable[T]:
            return seen.watch(send(response_format(fmt, step, model)), fmt)

        def again(seen: _Rejection = seen) -> bool:
            return may_retry() and not seen.rejected

        result, sent = await call_with_retries(step, attempt, limits, may_retry=again)
        calls += sent
        if result is not None:
            ladder.confirm(fmt)
            return result, calls
        if not seen.rejected or not ladder.reject(fmt, seen.why) or calls >= budget:
            return None, calls


async def plan(
    llm: Any,
    question: str,
    history: list[dict[str, str]],
    limits: CallLimits,
    ladder: FormatLadder,
) -> tuple[PlannerOutput | None, int]:
    """One call: task type, whether to retrieve, the retrieval query and its alternates.

    Returns the output (None: use the rules) and the requests sent. A refused
    response format is not asked again here: the ladder has stepped down, the
    rules plan this turn, and the answer's request uses the weaker format, so
    the turn keeps to CALLS_PER_TURN.
    """
    messages = [
        SystemMessage(load("planner").text),
        *_history_messages(history),
        HumanMessage(question),
    ]
    reply, calls = await structured_call(
        "planner",
        ladder,
        PlannerOutput,
        lambda kwargs: invoke(llm, messages, limits.timeout, **kwargs),
        limits,
    )
    if reply is None:
        return None, calls
    data = parse_json(str(reply.content))
    try:
        output = PlannerOutput.model_validate(data if data is not None else "")
    except ValidationError as exc:
        cut = (getattr(reply, "response_metadata", None) or {}).get("finish_reason") == "length"
        logger.warning(
            "LLM planner sent unusable output (%s); planning by the rules",
            "cut off at LLM_MAX_TOKENS" if cut else str(exc).splitlines()[0],
        )
        return None, calls
    output.alternates = [q for q in map(clean_query, output.alternates) if q][:2]
    output.query = clean_query(output.query)
    return output, calls


def clean_query(text: str) -> str:
    """A model-written query without list bullets, quotes or a "Query:" label."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    line = _LABEL.sub("", line.lstrip("-*• ").strip())
    return line.strip().strip("\"'“”「」『』").strip()


def _fenced(text: str) -> str:
    """Text that cannot close or open the fences around it."""
    return _FENCE.sub(lambda m: m.group(0).replace("<", "(").replace(">", ")"), text)


def context_message(question: str, evidence: list[dict[str, Any]], language: str = "en") -> str:
    """The user message of a synthesis call: the sources as fenced data, the question, then
    the language the claims are written in.

    Each source's sentences are numbered (synth.v7, v8 cite them by id); those addressed
    to the assistant are cut here too, whatever path the evidence came by (retrieval
    cuts them first). The language is said here, last, not in the system message: the
    system message stays the same text every turn, so llama.cpp's server reuses its
    evaluated tokens (a prefix match) whatever the asker's language, and a small model
    heeds what it read last.
    """
    sources = "\n\n".join(_source(n, e) for n, e in enumerate(evidence, 1))
    name = LANGUAGE_NAMES.get(language, "English")
    return (
        f"<sources>\n{sources}\n</sources>\n\n<question>\n{_fenced(question)}\n</question>"
        f"\n\nWrite each claim in {name}."
    )


def _source(n: int, item: dict[str, Any]) -> str:
    """One source of the user message: its title, then its sentences one a line, each
    with its id (those graph.focus.numbered chose, else all; never one addressed to the
    assistant)."""
    sentences = item.get("sentences")
    if sentences is None:
        sentences = offered(n, passage_sentences(str(item["text"])))
    # one line per sentence: a line break inside a stored sentence (a list item) would
    # start a prompt line of its own, which a document could write as a fake "[1.1] …"
    lines = [f"[{sid}] {_fenced(' '.join(sentence.split()))}" for sid, sentence in sentences]
    return "\n".join([f"[{n}] ({_fenced(item['document'])})", *lines])


def reply_cap(llm: Any, tokens: int = ANSWER_MAX_TOKENS) -> dict[str, Any]:
    """A request's keywords lowering the model's token cap to `tokens` (the answer's:
    `ANSWER_MAX_TOKENS`; the whole request body: a call's extra_body replaces the
    model's)."""
    body = dict(getattr(llm, "extra_body", None) or {})
    for name in _CAP_FIELDS:
        if isinstance(body.get(name), int):
            body[name] = min(int(body[name]), tokens)
            return {"extra_body": body}
    return {}


async def synthesise(
    llm: Any,
    question: str,
    evidence: list[dict[str, Any]],
    language: str,
    history: list[dict[str, str]],
    limits: CallLimits,
    ladder: FormatLadder,
    on_token: Callable[[str], None],
    budget: int = CALLS_PER_TURN - 1,
) -> tuple[str | None, int]:
    """Stream the model's structured reply (answerable, claims), and requests sent.

    `on_token` receives the raw reply text as it streams (the caller pulls the
    answer out of it). None when the model fails, stalls before its first
    token, or its stream is cut off. The system message holds only the rules;
    the passages travel in the user message, fenced as data. `budget`: the
    requests the turn has left for this step (a refused format is asked
    again in a weaker one only within it).
    """
    # the fixed rules first, the same text every turn (the server's reused prefix)
    messages = [
        SystemMessage(load("synth").text),
        *_history_messages(history[-4:]),
        HumanMessage(context_message(question, evidence, language)),
    ]
    shown = False

    def show(piece: str) -> None:
        nonlocal shown
        shown = True
        on_token(piece)

    cap = reply_cap(llm)
    answer, calls = await structured_call(
        "answer",
        ladder,
        SynthSentences,
        lambda kwargs: stream_text(llm, messages, limits.timeout, show, **cap, **kwargs),
        limits,
        may_retry=lambda: not shown,  # text on screen is not asked for twice
        budget=budget,
    )
    return (answer.strip() or None) if answer else None, calls
