"""Grading a split question (graph.question_parts): each part on its own evidence.

Each part's candidates go through the single question's grading
(retrieval_checker.grade) as if the part had been asked alone. The turn retries
while a part has nothing grounded and loops remain (an answered part is not
searched again); it answers when every part is answered, or, at the last loop,
when any is. A part with no grounded passage is missing: the reply says the
documents do not say it. When the loops run out with no part answered, the
whole question is graded as before it was split (`or_whole`) and answers if it
can.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graph.state import GraphState, Retrieval

Grader = Callable[[GraphState], tuple[Retrieval, list[dict[str, Any]]]]


def grade_parts(
    state: GraphState, grade_one: Grader
) -> tuple[Retrieval, list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """The loop's outcome, the turn's evidence (every answered part's, once each) and
    each part's graded evidence ([] for a missing part)."""
    parts = state.get("plan", {}).get("parts", [])
    candidates = state.get("part_candidates") or [[] for _ in parts]
    graded = [grade_one({**state, "evidence": found}) for found in candidates]
    # a part is answered by a grounded passage, not by the model's last-loop reading
    part_evidence = [keep if any(e.get("grounded") for e in keep) else [] for _, keep in graded]
    retrieval: Retrieval = dict(state.get("retrieval", {}))  # type: ignore[assignment]
    statuses = [r.get("status") for r, _ in graded]
    answered = [bool(keep) for keep in part_evidence]
    if all(answered):
        retrieval["status"] = "generate"
    elif "retry" in statuses:
        retrieval["status"] = "retry"
    else:
        retrieval["status"] = "generate" if any(answered) else "fallback"
    retrieval["pass_rate"] = round(sum(answered) / len(answered), 3) if answered else 0.0
    seen: set[int] = set()
    evidence: list[dict[str, Any]] = []
    for keep in part_evidence:
        for item in keep:
            if item["chunk_id"] not in seen:
                seen.add(item["chunk_id"])
                evidence.append(item)
    return retrieval, evidence, part_evidence


def or_whole(
    state: GraphState,
    parts: tuple[Retrieval, list[dict[str, Any]], list[list[dict[str, Any]]]],
    grade_one: Grader,
) -> tuple[Retrieval, list[dict[str, Any]], list[list[dict[str, Any]]], bool]:
    """The parts' outcome, or the whole question's once the loops ran out with no part
    answered: a question whose parts each miss a key term may still be answered
    whole, as before it was split. The last item says whether the whole question's
    outcome was taken.

    The parts come first while loops remain (a part is often grounded only at a
    looser threshold), so a whole question answered at the first loop may be
    answered whole at the last, from that loop's looser evidence."""
    retrieval, evidence, part_evidence = parts
    if any(part_evidence) or retrieval.get("status") == "retry":
        return retrieval, evidence, part_evidence, False
    whole, passed = grade_one(state)
    return whole, passed, part_evidence, True


def part_marks(part_evidence: list[list[dict[str, Any]]]) -> str:
    """Which parts are answered, for the decision path ("answered,missing")."""
    return ",".join("answered" if keep else "missing" for keep in part_evidence)
