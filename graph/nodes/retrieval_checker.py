"""retrieval_checker: grade the evidence and decide: generate, retry, or fall back."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.cross_language import MAX_FOR_MODEL, meaning_grounding, readable_by_model
from graph.cross_marks import crosses
from graph.entry_check import check_entry, unsure_entry
from graph.entry_question import CONFIRMED, answers_by_meaning, question_lead_of
from graph.grounding import is_grounded
from graph.kind_held import finer_kinds, holds_kind
from graph.nodes.recording import Step, recorded
from graph.part_grades import grade_parts, or_whole, part_marks
from graph.state import GraphState, Retrieval
from graph.subject import about_by_words


def grade(
    state: GraphState, max_loops: int, floor: float, has_llm: bool
) -> tuple[Retrieval, list[dict[str, Any]]]:
    """The loop's outcome and the evidence to answer from.

    The loop passes when a passage reaches this loop's threshold *and* is
    grounded (graph.grounding: it holds the question's key terms together, or
    means the same): a passage on the topic that does not answer is not
    enough. Grounded passing passages come first ("pass"), then the other
    passing ones and those above the loosest threshold (`floor`), marked
    "support" (they often hold a detail; response_synth discounts them). When
    the loops run out with passages on the topic but none grounded, a model
    may still read them and decide (its structured reply says whether they
    answer); without a model the turn falls back to the refusal. Passages in
    another language than the question (graph.cross_language) are used only
    when none in its own language is grounded; with a model and none of them
    grounded, the best of them that come close by meaning are read
    (`model_support`).
    """
    retrieval: Retrieval = dict(state.get("retrieval", {}))  # type: ignore[assignment]
    threshold = float(retrieval.get("threshold", 0.0))
    evidence = state.get("evidence", [])
    # a passage in another language shares no words: its keyword score says nothing,
    # the evidence test judges it by meaning (graph.cross_language)
    # an FAQ entry whose question leads the collection's answers by meaning, whatever
    # its keyword score (graph.entry_question.answers_by_meaning)
    passed = [e for e in evidence if e["score"] >= threshold or crosses(e) or answers_by_meaning(e)]
    question = state.get("normalized_question", "")
    kinds = finer_kinds(question)
    # the finer kind asked (a price, a time...) held by a passage in another language:
    # then one in the question's own language answers only if it holds one as well, and
    # is about the thing asked (graph.kind_held, graph.subject)
    held_across = bool(kinds) and any(crosses(e) and holds_kind(e, kinds) for e in evidence)
    about = about_by_words(question, evidence) if held_across else [True] * len(evidence)
    if any(
        not crosses(e)
        and (e["score"] >= floor or answers_by_meaning(e))
        and is_grounded(e)
        and (not held_across or (holds_kind(e, kinds) and on_subject))
        for e, on_subject in zip(evidence, about, strict=True)
    ):
        # a passage in the question's own language answers (at this loop or a later,
        # looser one): the turn goes as if no other language's passage had been found,
        # whose evidence (meaning alone) is the weaker
        evidence = [e for e in evidence if not crosses(e)]
        passed = [e for e in passed if not crosses(e)]
    grounded = [e for e in passed if is_grounded(e)]
    retrieval["pass_rate"] = round(len(grounded) / len(evidence), 3) if evidence else 0.0
    has_forms = bool(state.get("forms"))
    calls = state.get("plan", {}).get("tool_calls")
    if calls is not None and all(c["name"] != "retrieve_documents" for c in calls):
        # nothing was searched (forms only): a retry could not find more
        retrieval["status"] = "generate" if has_forms else "fallback"
        retrieval["pass_rate"] = 0.0
        return retrieval, []
    last = int(retrieval.get("loop", 1)) >= max_loops
    if grounded or has_forms or (last and has_llm and passed):
        retrieval["status"] = "generate"
        keep = [{**e, "graded": "pass", "grounded": True} for e in grounded]
        ids = {e["chunk_id"] for e in grounded}
        keep += [
            {**e, "graded": "support", "grounded": is_grounded(e)}
            for e in evidence
            # another language's passage: only when its meaning answers
            if e["chunk_id"] not in ids and (is_grounded(e) if crosses(e) else e["score"] >= floor)
        ]
        if has_llm and not grounded:
            # only when no passage is grounded: the model cites the first passage it is
            # offered, and each one besides is ~180 prompt tokens (6-12 s on one CPU thread)
            keep += model_support(evidence, {e["chunk_id"] for e in keep})
        return retrieval, keep
    retrieval["status"] = "fallback" if last else "retry"
    return retrieval, []


def model_support(evidence: list[dict[str, Any]], taken: set[Any]) -> list[dict[str, Any]]:
    """Passages in another language a model reads besides (graph.cross_language
    `readable_by_model`: the best `MAX_FOR_MODEL` by meaning), marked support and not
    grounded: the model decides whether they answer and quotes them, each claim checked
    against its quote; the extractive fallback never quotes them."""
    others = [e for e in evidence if crosses(e) and e["chunk_id"] not in taken]
    readable = sorted(
        (e for e in others if readable_by_model(e)), key=lambda e: -meaning_grounding(e)
    )
    return [{**e, "graded": "support", "grounded": False} for e in readable[:MAX_FOR_MODEL]]


async def check_nearest_entry(
    state: GraphState, context: GraphContext
) -> tuple[list[dict[str, Any]], str | None, int, float]:
    """The loop's evidence, the FAQ entry a model confirmed marked (graph.entry_check);
    the decision-path entry, the requests sent and the milliseconds waited.

    Asked once a turn, with a model, before the turn's first request, at the last loop
    and only when no passage is grounded: the nearest entry whose lead the embedder
    leaves unsure. (An earlier loop's retry query may still ground a passage.)"""
    evidence = list(state.get("evidence", []))
    last = int(state.get("retrieval", {}).get("loop", 1)) >= context.max_loops
    # once a turn: the request it sends counts in `llm_calls`
    if not (context.entry_check and last) or context.llm is None or state.get("llm_calls", 0):
        return evidence, None, 0, 0.0
    floor = min(context.thresholds)
    if any((e["score"] >= floor or crosses(e)) and is_grounded(e) for e in evidence):
        return evidence, None, 0, 0.0
    entry = unsure_entry(evidence)
    if entry is None:
        return evidence, None, 0, 0.0
    question = state.get("normalized_question", "")
    same, calls, waited = await check_entry(context.llm, question, entry, context.llm_limits)
    if same:
        evidence = [{**e, CONFIRMED: True} if e is entry else e for e in evidence]
    said = "failed" if same is None else "yes" if same else "no"
    # the lead the embedder left unsure: an operator sees how close the call was
    decision = f"retrieval_checker:entry_check:{said}:lead={question_lead_of(entry):.3f}"
    return evidence, decision, calls, waited


@recorded("retrieval_checker")
async def retrieval_checker(state: GraphState, runtime: Runtime[GraphContext]) -> Step:
    """Keep only graded evidence and set the loop's status."""
    context = runtime.context
    if state.get("plan", {}).get("parts"):
        # a split question: each part graded on its own evidence (graph.part_grades)
        has_llm = context.llm is not None
        floor = min(context.thresholds)

        def grade_one(one: GraphState) -> tuple[Retrieval, list[dict[str, Any]]]:
            return grade(one, context.max_loops, floor, has_llm)

        retrieval, passed, by_part, whole = or_whole(
            state, grade_parts(state, grade_one), grade_one
        )
        return Step(
            {"retrieval": retrieval, "evidence": passed, "part_evidence": by_part},
            f"retrieval_checker:{retrieval['status']}:parts={part_marks(by_part)}"
            + (":whole" if whole else ""),
        )
    evidence, checked, calls, waited = await check_nearest_entry(state, context)
    if checked:
        state = {**state, "evidence": evidence}
    retrieval, passed = grade(
        state, context.max_loops, min(context.thresholds), context.llm is not None
    )
    # FAQ entries grounded by their question's lead alone (graph.entry_question): an
    # operator reading the path sees which answers rest on it
    by_meaning = sum(1 for e in passed if e.get("graded") == "pass" and answers_by_meaning(e))
    update: GraphState = {"retrieval": retrieval, "evidence": passed}
    if checked:
        update["llm_calls"] = calls
        update["decision_path"] = [checked]
        update["timings_ms"] = {"llm:entry_check": waited}
    return Step(
        update,
        f"retrieval_checker:{retrieval['status']}:pass_rate={retrieval['pass_rate']}"
        + (f":by_meaning={by_meaning}" if by_meaning else ""),
    )
