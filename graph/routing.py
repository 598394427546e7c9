"""Pure routing functions between nodes (table-tested; graph.builder wires them)."""

from __future__ import annotations

from graph.state import GraphState


def route_after_guard(state: GraphState) -> str:
    """A blocked message skips the pipeline: the guard wrote the reply, telemetry records it."""
    return "telemetry" if state.get("guard_blocked") else "language_normalizer"


def route_after_memory(state: GraphState) -> str:
    """A remembered answer ends the turn; otherwise plan (or search a resolved follow-up)."""
    if "memory_id" in state:
        return "telemetry"
    return "query_builder" if "plan" in state else "planner"


def route_after_planner(state: GraphState) -> str:
    """Follow-ups are rewritten first; retrieval questions build a query; the rest answer."""
    plan = state.get("plan", {})
    if plan.get("task_type") == "conversation_followup":
        return "followup_transform"
    # A form request may come without a document search (the LLM planner can say
    # should_retrieve: false): its form tools still have to run.
    if plan.get("should_retrieve") or plan.get("tool_calls"):
        return "query_builder"
    return "response_synth"


def route_after_retrieval_checker(state: GraphState) -> str:
    """Retry with a new query, or answer (with evidence, or as a fallback)."""
    status = state.get("retrieval", {}).get("status")
    return "query_builder" if status == "retry" else "response_synth"
