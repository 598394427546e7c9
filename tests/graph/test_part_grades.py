"""Grading a split question (graph.part_grades): per part, and whole when no part answers."""

from __future__ import annotations

from typing import Any

from graph.part_grades import grade_parts, or_whole, part_marks
from graph.state import GraphState, Retrieval

FEE = {"chunk_id": 1, "grounded": True}
DOCS = {"chunk_id": 2, "grounded": True}
TOPIC = {"chunk_id": 3, "grounded": False}
WHOLE = {"chunk_id": 4, "grounded": False}  # the whole question's passage


def grader(last: bool) -> Any:
    """A stand-in for retrieval_checker.grade: grounded passages generate, else retry
    (or fall back at the last loop); the whole question's passage always generates."""

    def grade_one(state: GraphState) -> tuple[Retrieval, list[dict[str, Any]]]:
        evidence = state.get("evidence", [])
        if evidence == [WHOLE]:
            return {"status": "generate"}, [{**WHOLE, "graded": "pass"}]
        grounded = [e for e in evidence if e.get("grounded")]
        if grounded:
            return {"status": "generate"}, grounded
        return {"status": "fallback" if last else "retry"}, []

    return grade_one


def state(*parts: list[dict[str, Any]]) -> GraphState:
    return {
        "normalized_question": "whole",
        "plan": {"parts": [{"text": f"q{i}", "query": f"q{i}"} for i in range(len(parts))]},
        "part_candidates": list(parts),
        "evidence": [WHOLE],
        "retrieval": {"loop": 1},
    }


def test_both_parts_answered_generate_with_each_parts_evidence_once() -> None:
    graded = grade_parts(state([FEE], [DOCS, FEE]), grader(last=False))
    retrieval, evidence, by_part = graded
    assert retrieval["status"] == "generate" and retrieval["pass_rate"] == 1.0
    assert [e["chunk_id"] for e in evidence] == [1, 2]
    assert part_marks(by_part) == "answered,answered"


def test_a_missing_part_retries_while_loops_remain_then_answers_the_other() -> None:
    retrieval, _, by_part = grade_parts(state([FEE], [TOPIC]), grader(last=False))
    assert retrieval["status"] == "retry" and part_marks(by_part) == "answered,missing"
    retrieval, evidence, by_part = grade_parts(state([FEE], [TOPIC]), grader(last=True))
    assert retrieval["status"] == "generate" and evidence == [FEE]
    assert part_marks(by_part) == "answered,missing"


def test_the_whole_question_answers_when_no_part_does_at_the_last_loop() -> None:
    asked = state([TOPIC], [TOPIC])
    early = or_whole(asked, grade_parts(asked, grader(last=False)), grader(last=False))
    assert early[0]["status"] == "retry" and early[3] is False
    late = or_whole(asked, grade_parts(asked, grader(last=True)), grader(last=True))
    retrieval, evidence, by_part, whole = late
    assert whole and retrieval["status"] == "generate" and evidence[0]["chunk_id"] == 4
    assert part_marks(by_part) == "missing,missing"


def test_an_answered_part_keeps_the_parts_outcome() -> None:
    asked = state([FEE], [TOPIC])
    _, evidence, _, whole = or_whole(
        asked, grade_parts(asked, grader(last=True)), grader(last=True)
    )
    assert not whole and evidence == [FEE]
