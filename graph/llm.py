"""The three LLM steps (plan, rewrite, synthesise) over any langchain chat model.

Each returns its result, or None when the model fails, times out or sends
something unusable (the calling node then uses its deterministic fallback, so
the user always gets a reply), together with the number of requests sent.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from graph.llm_client import CallLimits, call_with_retries, invoke, stream_text
from graph.prompts import load

logger = logging.getLogger(__name__)
LANGUAGE_NAMES = {
    "en": "English",
    "zh-hant": "Traditional Chinese (繁體中文)",
    "zh-hans": "Simplified Chinese (简体中文)",
}
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_FENCE = re.compile(r"</?\s*(?:sources|question)\s*>", re.IGNORECASE)


class PlannerOutput(BaseModel):
    """The planner's structured output."""

    task_type: Literal[
        "simple_faq", "form_download", "conversation_followup", "out_of_scope", "greeting"
    ]
    should_retrieve: bool
    query: str = ""


def _history_messages(history: list[dict[str, str]]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for m in history:
        out.append(HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"]))
    return out


async def plan(
    llm: Any, question: str, history: list[dict[str, str]], limits: CallLimits
) -> tuple[PlannerOutput | None, int]:
    """One call: task type, whether to retrieve, and the standalone retrieval query.

    Returns the output (None: use the rules) and the requests sent.
    """
    messages = [
        SystemMessage(load("planner").text),
        *_history_messages(history),
        HumanMessage(question),
    ]
    reply, calls = await call_with_retries(
        "planner",
        lambda: invoke(llm, messages, limits.timeout, response_format={"type": "json_object"}),
        limits,
    )
    if reply is None:
        return None, calls
    match = _JSON_OBJECT.search(str(reply.content))
    try:
        return PlannerOutput.model_validate(json.loads(match.group(0) if match else "")), calls
    except (json.JSONDecodeError, ValidationError) as exc:
        logger.warning("LLM planner sent unusable output (%s); using the rules", exc)
        return None, calls


async def rewrite(
    llm: Any, question: str, failed: list[str], limits: CallLimits
) -> tuple[str | None, int]:
    """A new retrieval query that differs from the ones that failed, and the requests sent."""
    tried = "\n".join(f"- {q}" for q in failed) or "- (none)"
    messages = [
        SystemMessage(load("rewrite").text),
        HumanMessage(f"Question: {question}\nQueries that found nothing:\n{tried}"),
    ]
    reply, calls = await call_with_retries(
        "rewrite", lambda: invoke(llm, messages, limits.timeout), limits
    )
    text = str(reply.content).strip() if reply is not None else ""
    line = text.splitlines()[0] if text else ""
    # models echo the prompt's list style and quoting: "- "passport fee""
    return line.lstrip("-*• ").strip().strip("\"'“”「」") or None, calls


def _fenced(text: str) -> str:
    """Text that cannot close or open the fences around it."""
    return _FENCE.sub(lambda m: m.group(0).replace("<", "(").replace(">", ")"), text)


def context_message(question: str, evidence: list[dict[str, Any]]) -> str:
    """The user message of a synthesis call: the sources as fenced data, then the question."""
    sources = "\n\n".join(
        f"[{n}] ({_fenced(e['document'])}) {_fenced(e['text'])}" for n, e in enumerate(evidence, 1)
    )
    return f"<sources>\n{sources}\n</sources>\n\n<question>\n{_fenced(question)}\n</question>"


async def synthesise(
    llm: Any,
    question: str,
    evidence: list[dict[str, Any]],
    language: str,
    history: list[dict[str, str]],
    limits: CallLimits,
    on_token: Callable[[str], None],
) -> tuple[str | None, int]:
    """Stream a cited answer grounded in `evidence`, and the requests sent.

    None when the model fails, stalls before its first token, or its stream is
    cut off. The system message holds only the rules; the passages travel in
    the user message, fenced as data, so a passage's words are never the system's.
    """
    system = load("synth").text.format(language_name=LANGUAGE_NAMES.get(language, "English"))
    messages = [
        SystemMessage(system),
        *_history_messages(history[-4:]),
        HumanMessage(context_message(question, evidence)),
    ]
    shown = False

    def show(piece: str) -> None:
        nonlocal shown
        shown = True
        on_token(piece)

    answer, calls = await call_with_retries(
        "answer",
        lambda: stream_text(llm, messages, limits.timeout, show),
        limits,
        may_retry=lambda: not shown,  # text on screen is not asked for twice
    )
    return (answer.strip() or None) if answer else None, calls
