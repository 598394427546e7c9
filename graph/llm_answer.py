"""The model's answer for response_synth: streamed, checked sentence by sentence, or refused.

The synthesis call returns JSON (`answerable`, `answer`, `citations`);
`AnswerFieldStream` pulls the answer text out while it streams and
`CitationGate` shows each sentence only once its citation is checked (or
attributed). The model saying the sources do not answer is a refusal at no
extra cost. An answer with a citation that does not hold (see graph.citations),
leaking the prompt, or citing nothing at all is discarded with its reason (the
caller resets the screen and falls back).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.runtime import Runtime

from graph.answer_safety import allowed_links, leaks_prompt, strip_unknown_links
from graph.citations import CITATION, CitationGate, citation_entry, cut_passages
from graph.context import GraphContext
from graph.events import Token
from graph.llm import CALLS_PER_TURN, synthesise
from graph.state import GraphState
from graph.structured import AnswerFieldStream, parse_json
from textkit.scripts import to_script

ANSWERABLE = re.compile(r'"answerable"\s*:\s*true')


@dataclass
class ModelAnswer:
    """What the model's reply came to."""

    verdict: Literal["answered", "refused", "discarded"]
    text: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    shown: bool = False  # something reached the screen (a discard must reset it)
    # why it was discarded: no_reply | prompt_leak | uncited, or why a citation did not
    # hold: unsupported | number | other_entity | polarity
    reason: str = ""


def cited_sources(answer: str, evidence: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sources an answer cites, in order of first citation, once per document."""
    seen: list[int] = []
    documents: set[str] = set()
    for match in CITATION.finditer(answer):
        n = int(match.group(1))
        if 1 <= n <= len(evidence) and str(evidence[n - 1]["document"]) not in documents:
            documents.add(str(evidence[n - 1]["document"]))
            seen.append(n)
    return [citation_entry(n, evidence[n - 1]) for n in seen]


async def model_answer(
    state: GraphState, runtime: Runtime[GraphContext], evidence: list[dict[str, Any]], language: str
) -> tuple[ModelAnswer, int]:
    """Ask the model once; its checked answer, refusal or discard, and the requests sent."""
    context = runtime.context
    question = state.get("standalone_question") or state.get("normalized_question", "")
    fields = AnswerFieldStream()
    tail = ""  # the shown text's last characters: enough to hold a run of the prompt's words
    leaked = False
    shown = False

    def emit(sentence: str) -> None:
        nonlocal leaked, tail, shown
        tail = (tail + sentence)[-400:]
        # a model repeating its rules stops being shown at once, not after the stream
        leaked = leaked or leaks_prompt(tail)
        if not leaked:
            shown = True
            runtime.stream_writer(Token(to_script(sentence, language), ahead=gate.ahead))

    gate = CitationGate(evidence, emit, question, passages=None)
    # The passages are cut (jieba: about 12 ms for five new ones) in a thread while the
    # request goes out and the model starts writing, not before the request: with many turns
    # at once, every turn's cut would hold back every other turn's request.
    cutting = asyncio.ensure_future(asyncio.to_thread(cut_passages, evidence))

    ahead_allowed: bool | None = None  # None until the answer field begins

    def feed(piece: str) -> None:
        if gate.waiting and cutting.done():
            gate.take(cutting.result())
        nonlocal ahead_allowed
        text = fields.feed(piece)
        if ahead_allowed is None and fields.found:
            # decided once, as the answer begins: a sentence's first clauses may show
            # before its end only when the model said the sources answer before it (a
            # model yet to say so may refuse); once the answer is closed it shows whole
            ahead_allowed = fields.said(ANSWERABLE)
        gate.early = bool(ahead_allowed) and not fields.closed
        gate.feed(text)
        # the answer is complete: its last sentence shows now, not after the citations,
        # once the model has said the sources answer (a model writing "answerable" after
        # the answer is shown it at the end, as before)
        if fields.closed and fields.said(ANSWERABLE):
            gate.flush()

    try:
        reply, calls = await synthesise(
            context.llm,
            question,
            evidence,
            language,
            state.get("history", []),
            context.llm_limits,
            context.llm_formats,
            feed,
            # what the planner left of the turn's budget (a refused format may be asked again)
            budget=max(1, CALLS_PER_TURN - state.get("llm_calls", 0)),
        )
        if gate.waiting:
            gate.take(await cutting)
    finally:
        cutting.cancel()  # a stopped turn: the thread's result is not wanted
    if reply is None:
        return ModelAnswer("discarded", shown=shown, reason="no_reply"), calls
    data = None if fields.plain else parse_json(reply)
    if data is not None and data.get("answerable") is False:
        return ModelAnswer("refused", shown=shown), calls
    if data is not None and not fields.found:
        gate.feed(str(data.get("answer", "")))  # the answer field came in a shape not streamed
    text = gate.finish()
    if gate.rejected:  # a citation that did not hold
        return ModelAnswer("discarded", shown=shown, reason=gate.rejected), calls
    if leaked or leaks_prompt(text):
        return ModelAnswer("discarded", shown=shown, reason="prompt_leak"), calls
    citations = cited_sources(text, evidence)
    if not text or not citations:  # nothing in it could be traced to a passage
        return ModelAnswer("discarded", shown=shown, reason="uncited"), calls
    text, _ = strip_unknown_links(text, allowed_links(evidence, state.get("forms", [])))
    return ModelAnswer("answered", to_script(text, language), citations, shown), calls
