"""The model's answer for response_synth: streamed, checked claim by claim, or refused.

The synthesis call (synth.v10) reads the passages a claim may rest on
(graph.claim_gate.readable) that hold the kind of answer asked
(graph.focus.answering_passages; with none the model is not asked), each as numbered
sentences (graph.focus.numbered: the ones bearing on the
question), and returns JSON:
`answerable`, and `claims`, each with the id of the source sentence it rests
on (`"sentence": "2.3"`) and the claim in the user's language (a reply in the
older shape gives the source number and the sentence copied as `quote`).
`ClaimStream` pulls each claim out as it completes and `ClaimGate` shows it
once the judge (graph.claim_judge: the id names a sentence the model was
offered, or the quote is in the passage; the facts agree; the meaning is the
sentence's) says it holds; a claim that does not is dropped, and why goes
to the decision path. A reply in the older shape (an `answer` text with [n]
marks, or plain text) goes through `CitationGate`, each sentence judged
against the best sentence of the passage it cites (by the same judge when the
local embedder is there, else by its words as before). The model saying the
sources do not answer is a refusal at no extra cost. A reply cut off after some
claims (the token cap) keeps the claims it finished. An answer of which nothing
holds, leaking the prompt, or citing nothing at all is discarded with its
reason (the caller resets the screen and falls back).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.runtime import Runtime

from graph.answer_safety import allowed_links, leaks_prompt, strip_unknown_links
from graph.citations import CITATION, CitationGate, citation_entry, cut_passages
from graph.claim_gate import ClaimGate, judged_check, readable
from graph.claim_stream import ClaimParts, ClaimStream, claim_parts
from graph.context import GraphContext
from graph.events import Token
from graph.focus import MAX_PASSAGES, answering_passages, numbered
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
    # hold: unsupported | number | other_entity | polarity | currency | meaning |
    # sentence_not_found | quote_not_found | empty, or why a claim true to its sentence
    # answers no question asked: answer_kind | off_subject (graph.claim_question)
    reason: str = ""
    # why each claim (or sentence) not shown was dropped, in order
    dropped: list[str] = field(default_factory=list)


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
    # Only passages a claim may rest on are offered (graph.claim_gate.readable): a claim
    # on any other is dropped whatever it says, so offering one costs its reading time
    # on one CPU thread and invites the model to answer from it. With none, no request:
    # nothing the model wrote could be shown, and the caller's fallback (the extractive
    # answer needs a grounded passage) refuses as it would have after the call.
    evidence = readable(evidence, context.screen_embedder)
    if not evidence:
        return ModelAnswer("discarded", reason="ungrounded"), 0
    # A claim must answer the question (graph.claim_question): one on a sentence holding
    # no answer of the kind asked (a date for "when") is dropped. With the local embedder
    # every reply shape is judged so, and only the passages holding one are offered, and
    # of those the sentences holding one and the sentence before each (without it a reply
    # in the older shape is judged by its words alone, on any sentence: all are offered).
    # A split question's parts ask kinds of their own: none is asked of it.
    asked = "" if state.get("plan", {}).get("parts") else question
    by_kind = bool(asked) and context.screen_embedder is not None
    if by_kind:
        evidence = await asyncio.to_thread(answering_passages, asked, evidence)
        if not evidence:
            return ModelAnswer("discarded", reason="answer_kind"), 0
    # the model reads the best few passages, long ones cut to what bears on the question,
    # as numbered sentences (graph.focus); its source numbers, sentence ids and citations
    # are those passages'
    evidence = evidence[:MAX_PASSAGES]
    prompt_evidence = await numbered(question, evidence, context.embedder, by_kind=by_kind)
    offered = {
        (n, int(sid.split(".")[1]))
        for n, item in enumerate(prompt_evidence, 1)
        for sid, _ in item["sentences"]
    }
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

    # the judge's meaning threshold is the local embedder's: with another, words decide
    embedder = context.screen_embedder
    dropped: list[str] = []
    check = judged_check(evidence, embedder, dropped, asked) if embedder is not None else None
    gate = CitationGate(evidence, emit, question, passages=None, check=check)
    claims = ClaimStream()
    claim_gate = ClaimGate(evidence, emit, embedder, offered, language, asked)
    held: list[ClaimParts] = []  # claims before "answerable": true
    # The passages are cut (jieba: about 12 ms for five new ones) in a thread while the
    # request goes out and the model starts writing, not before the request: with many turns
    # at once, every turn's cut would hold back every other turn's request.
    cutting = asyncio.ensure_future(asyncio.to_thread(cut_passages, evidence))

    ahead_allowed: bool | None = None  # None until the answer field begins

    def feed(piece: str) -> None:
        if gate.waiting and cutting.done():
            gate.take(cutting.result())
        nonlocal ahead_allowed
        for claim in claims.feed(piece):
            held.append(claim_parts(claim))
            if claims.said(ANSWERABLE):  # the model said the sources answer: show as it goes
                while held:
                    claim_gate.add(*held.pop(0))
        text = fields.feed(piece)
        if claims.found:
            return
        if ahead_allowed is None and fields.found:
            # decided once, as the answer begins: a sentence's first clauses may show
            # before its end only when the model said the sources answer before it (a
            # model yet to say so may refuse); once the answer is closed it shows whole
            ahead_allowed = fields.said(ANSWERABLE)
        # a sentence's first clauses are judged whole only (a prefix is no claim)
        gate.early = bool(ahead_allowed) and not fields.closed and check is None
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
            prompt_evidence,
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
        # a reply cut off (LLM_MAX_TOKENS, a dropped stream) after the model said the
        # sources answer: the claims it finished were judged as they came, and stand
        cut_claims = reply is None and claim_gate.count > 0
        if reply is None and not cut_claims:
            return ModelAnswer("discarded", shown=shown, reason="no_reply"), calls
        data = None if reply is None or fields.plain else parse_json(reply)
        if data is not None and data.get("answerable") is False:
            return ModelAnswer("refused", shown=shown), calls
        if cut_claims:
            text = await claim_gate.finish()
            dropped.extend(claim_gate.dropped)
        elif data is not None and isinstance(data.get("claims"), list):
            if claims.count == 0:  # the claims came in a shape not streamed
                held.extend(claim_parts(c) for c in data["claims"] if isinstance(c, dict))
            for parts in held:
                claim_gate.add(*parts)
            text = await claim_gate.finish()
            dropped.extend(claim_gate.dropped)
        else:
            if data is not None and not fields.found:
                gate.feed(str(data.get("answer", "")))  # the answer came in a shape not streamed
            text = gate.finish()
    finally:
        cutting.cancel()  # a stopped turn: the thread's result is not wanted
        claim_gate.cancel()
    if gate.rejected:  # a citation that did not hold
        return ModelAnswer("discarded", shown=shown, reason=gate.rejected, dropped=dropped), calls
    if leaked or leaks_prompt(text):
        return ModelAnswer("discarded", shown=shown, reason="prompt_leak", dropped=dropped), calls
    citations = cited_sources(text, evidence)
    if not text or not citations:  # nothing in it held, or could be traced to a passage
        why = dropped[0].split(":")[-1] if dropped else "uncited"
        return ModelAnswer("discarded", shown=shown, reason=why, dropped=dropped), calls
    text, _ = strip_unknown_links(text, allowed_links(evidence, state.get("forms", [])))
    return ModelAnswer("answered", to_script(text, language), citations, shown, "", dropped), calls
