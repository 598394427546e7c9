"""What the user got from a turn (`outcome` in `ragbot ask --json`, traces and stats)."""

from __future__ import annotations

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
    path = state.get("decision_path", [])
    if "memory_id" in state or "memory:hit" in path:
        return "memory"
    kinds = [p.split(":", 1)[1] for p in path if p.startswith("response_synth:")]
    return OUTCOMES.get(kinds[-1], "refused") if kinds else "refused"
