"""The three LLM steps (plan, rewrite, synthesise) over any langchain chat model.

Each returns None (or raises nothing) when the model fails, times out or sends
something unusable: the calling node then uses its deterministic fallback, so
the user always gets a reply.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

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


async def _guarded(call: Awaitable[Any], timeout: float, step: str) -> Any:
    try:
        return await asyncio.wait_for(call, timeout)
    except Exception as exc:  # timeouts, HTTP errors, connection errors alike
        logger.warning("LLM %s failed (%s: %s); using the fallback", step, type(exc).__name__, exc)
        return None


async def plan(
    llm: Any, question: str, history: list[dict[str, str]], timeout: float
) -> PlannerOutput | None:
    """One call: task type, whether to retrieve, and the standalone retrieval query."""
    messages = [
        SystemMessage(load("planner").text),
        *_history_messages(history),
        HumanMessage(question),
    ]
    reply = await _guarded(
        llm.ainvoke(messages, response_format={"type": "json_object"}), timeout, "planner"
    )
    if reply is None:
        return None
    match = _JSON_OBJECT.search(str(reply.content))
    try:
        return PlannerOutput.model_validate(json.loads(match.group(0) if match else ""))
    except (json.JSONDecodeError, ValidationError) as exc:
        logger.warning("LLM planner sent unusable output (%s); using the rules", exc)
        return None


async def rewrite(llm: Any, question: str, failed: list[str], timeout: float) -> str | None:
    """A new retrieval query that differs from the ones that failed."""
    tried = "\n".join(f"- {q}" for q in failed) or "- (none)"
    messages = [
        SystemMessage(load("rewrite").text),
        HumanMessage(f"Question: {question}\nQueries that found nothing:\n{tried}"),
    ]
    reply = await _guarded(llm.ainvoke(messages), timeout, "rewrite")
    text = str(reply.content).strip().strip('"') if reply is not None else ""
    return text.splitlines()[0] if text else None


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
    timeout: float,
    on_token: Callable[[str], None],
) -> str | None:
    """Stream a cited answer grounded in `evidence`; None when the model fails.

    The system message holds only the rules; the passages travel in the user
    message, fenced as data, so a passage's words are never the system's.
    """
    system = load("synth").text.format(language_name=LANGUAGE_NAMES.get(language, "English"))
    messages = [
        SystemMessage(system),
        *_history_messages(history[-4:]),
        HumanMessage(context_message(question, evidence)),
    ]

    async def run() -> str:
        parts: list[str] = []
        async for chunk in llm.astream(messages):
            piece = str(chunk.content)
            if piece:
                parts.append(piece)
                on_token(piece)
        return "".join(parts)

    answer = await _guarded(run(), timeout, "synth")
    return answer.strip() if answer else None
