"""Routing functions, table-tested."""

from __future__ import annotations

from typing import Any

import pytest

from graph.nodes.consolidate_memory import memory_entry
from graph.nodes.retrieve_memory import servable_in
from graph.routing import (
    route_after_guard,
    route_after_memory,
    route_after_planner,
    route_after_retrieval_checker,
)


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({}, "language_normalizer"),
        ({"guard_blocked": False}, "language_normalizer"),
        ({"guard_blocked": True}, "telemetry"),
    ],
)
def test_route_after_guard(state: dict[str, Any], expected: str) -> None:
    assert route_after_guard(state) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("plan", "expected"),
    [
        ({"task_type": "conversation_followup", "should_retrieve": True}, "followup_transform"),
        ({"task_type": "conversation_followup", "should_retrieve": False}, "followup_transform"),
        ({"task_type": "simple_faq", "should_retrieve": True}, "query_builder"),
        ({"task_type": "form_download", "should_retrieve": True}, "query_builder"),
        (
            {
                "task_type": "form_download",
                "should_retrieve": False,
                "tool_calls": [{"name": "get_form_download_links", "args": {}}],
            },
            "query_builder",
        ),
        ({"task_type": "greeting", "should_retrieve": False}, "response_synth"),
        ({"task_type": "out_of_scope", "should_retrieve": False}, "response_synth"),
        ({}, "response_synth"),
    ],
)
def test_route_after_planner(plan: dict[str, Any], expected: str) -> None:
    assert route_after_planner({"plan": plan}) == expected  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("retry", "query_builder"),
        ("generate", "response_synth"),
        ("fallback", "response_synth"),
        (None, "response_synth"),
    ],
)
def test_route_after_retrieval_checker(status: str | None, expected: str) -> None:
    state = {"retrieval": {"status": status}} if status else {}
    assert route_after_retrieval_checker(state) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"memory_id": 7}, "telemetry"),  # answered from memory
        ({}, "planner"),
        ({"plan": {"task_type": "conversation_followup"}}, "query_builder"),  # resolved follow-up
    ],
)
def test_route_after_memory(state: dict[str, Any], expected: str) -> None:
    assert route_after_memory(state) == expected  # type: ignore[arg-type]


ANSWERED: dict[str, Any] = {
    "question": "How much is a passport?",
    "normalized_question": "How much is a passport?",
    "language": "en",
    "plan": {"task_type": "simple_faq"},
    "answer": "It costs 1,300 dollars [1].",
    "citations": [{"n": 1, "document": "passport"}],
    "evidence": [{"chunk_id": 1, "grounded": True}],
    "decision_path": ["response_synth:llm"],
    "outcome": "answered",
}


@pytest.mark.parametrize(
    ("change", "kept"),
    [
        ({}, True),
        ({"decision_path": ["response_synth:extractive"]}, True),
        (
            {"decision_path": ["response_synth:refusal"], "outcome": "refused", "citations": []},
            False,
        ),
        (
            {
                "decision_path": ["response_synth:llm_refusal"],
                "outcome": "refused",
                "citations": [],
            },
            False,
        ),
        ({"evidence": [{"chunk_id": 1, "grounded": False}]}, False),  # not grounded
        ({"citations": []}, False),
        ({"question": "How much is a passport? [EMAIL]"}, False),  # personal data
        ({"plan": {"task_type": "conversation_followup"}}, False),
        ({"plan": {"task_type": "out_of_scope"}}, False),
        ({"history": [{"role": "user", "content": "hi"}], "normalized_question": "and it?"}, False),
        # already remembered
        ({"decision_path": ["memory:hit", "response_synth:llm"], "outcome": "memory"}, False),
        ({"guard_blocked": True, "outcome": "blocked"}, False),
        (
            {
                "plan": {"task_type": "form_download"},
                "decision_path": ["response_synth:forms"],
                "outcome": "forms",
                "citations": [],
                "forms": [{"name": "passport form", "url": "https://x"}],
            },
            True,
        ),
    ],
)
def test_what_the_answer_memory_keeps(change: dict[str, Any], kept: bool) -> None:
    assert (memory_entry({**ANSWERED, **change}) is not None) is kept  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    ("stored", "asked", "served"),
    [
        ("en", "en", True),
        ("zh-hant", "zh-hans", True),  # converted to the asker's script
        ("zh-hans", "zh-hant", True),
        ("en", "zh-hant", False),  # a reply language chosen with /lang wins over memory
        ("zh-hant", "en", False),
    ],
)
def test_which_remembered_answers_an_asker_can_be_given(
    stored: str, asked: str, served: bool
) -> None:
    assert servable_in(stored, asked) is served
