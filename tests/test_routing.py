"""Routing functions, table-tested."""

from __future__ import annotations

from typing import Any

import pytest

from graph.routing import (
    route_after_guard,
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
