"""telemetry: the turn's trace summary (intent, tools, language, loops, timings, prompt versions).

The service stores it with the turn in Postgres (and sends it to Langfuse when
configured); this node only assembles it, so a failing trace backend can never
cost the user the answer.
"""

from __future__ import annotations

import time

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.state import GraphState

# response_synth's kind of reply → the turn's outcome (`ragbot ask --json`)
OUTCOMES = {
    "greeting": "smalltalk",
    "out_of_scope": "refused",
    "forms": "forms",
    "llm": "answered",
    "extractive": "answered",
    "fallback_extractive": "answered",
    "refusal": "refused",
    "llm_refusal": "refused",
}


def outcome_of(state: GraphState) -> str:
    """answered, refused, blocked, forms, smalltalk or memory: what the user got."""
    if state.get("guard_blocked"):
        return "blocked"
    if "memory_id" in state:
        return "memory"
    kinds = [
        p.split(":", 1)[1]
        for p in state.get("decision_path", [])
        if p.startswith("response_synth:")
    ]
    return OUTCOMES.get(kinds[-1], "refused") if kinds else "refused"


def telemetry(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Summarise the turn into `trace`."""
    start = time.perf_counter()
    plan = state.get("plan", {})
    retrieval = state.get("retrieval", {})
    outcome = outcome_of(state)
    trace = {
        "outcome": outcome,
        "intent": plan.get("task_type", "blocked" if state.get("guard_blocked") else None)
        or ("memory" if outcome == "memory" else None),
        "plan_source": plan.get("source"),
        "used_tools": [c["name"] for c in plan.get("tool_calls", [])],
        "language": state.get("language"),
        "is_out_of_scope": outcome == "refused",
        "guard_reason": state.get("guard_reason"),
        "retrieval_loops": int(retrieval.get("loop", 0)),
        "retrieval_status": retrieval.get("status"),
        "failed_queries": retrieval.get("failed_queries", []),
        "prompt_versions": dict(runtime.context.prompt_versions),
        "memory_id": state.get("memory_id"),  # a vote on this answer reaches the entry
    }
    return {
        "trace": trace,
        "decision_path": ["telemetry"],
        "timings_ms": {"telemetry": round((time.perf_counter() - start) * 1000, 3)},
    }
