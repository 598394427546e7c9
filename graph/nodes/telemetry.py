"""telemetry: the turn's trace summary (intent, tools, language, loops, timings, prompt versions).

The service stores it with the turn in Postgres (and sends it to Langfuse when
configured); this node only assembles it, so a failing trace backend can never
cost the user the answer.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.nodes.recording import Step, recorded
from graph.state import GraphState

LOOKED_AT = 3  # passages kept with a turn, for a person taking it over
SNIPPET_CHARS = 200


def looked_at(passages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first few passages a turn graded or retrieved: document, page, a short snippet."""
    return [
        {
            "document": p.get("document"),
            "page": p.get("page"),
            "text": " ".join(str(p.get("text") or "").split())[:SNIPPET_CHARS],
        }
        for p in passages[:LOOKED_AT]
    ]


@recorded("telemetry")
def telemetry(state: GraphState, runtime: Runtime[GraphContext]) -> Step:
    """Summarise the turn into `trace`."""
    plan = state.get("plan", {})
    retrieval = state.get("retrieval", {})
    outcome = state.get("outcome", "refused")  # set by the node that decided the reply
    trace = {
        "outcome": outcome,
        # a turn that never planned: blocked, or answered from memory
        "intent": plan.get("task_type") or {"blocked": "blocked", "memory": "memory"}.get(outcome),
        "plan_source": plan.get("source"),
        "used_tools": [c["name"] for c in plan.get("tool_calls", [])],
        "language": state.get("language"),
        "is_out_of_scope": outcome == "refused",
        "guard_reason": state.get("guard_reason"),
        "retrieval_loops": int(retrieval.get("loop", 0)),
        "retrieval_status": retrieval.get("status"),
        "failed_queries": retrieval.get("failed_queries", []),
        # the question as kept, as it stood alone, the last search's query and the
        # rewrites before it: the self-corrective loop's history (the HTTP API shows it)
        "query": {
            "original": state.get("question", ""),
            "standalone": state.get("standalone_question") or state.get("normalized_question"),
            "final": retrieval.get("query"),
            "rewrites": list(retrieval.get("failed_queries", [])),
        },
        "prompt_versions": dict(runtime.context.prompt_versions),
        "memory_id": state.get("memory_id"),  # a vote on this answer reaches the entry
        # what the asker could read (None: all): a refusal is asked again as them later
        "collections": None if (c := runtime.context.collections) is None else list(c),
        # what the answer (or refusal) rested on: a hand-off case shows it to staff
        "looked_at": looked_at(state.get("evidence") or state.get("candidates") or []),
    }
    return Step({"trace": trace}, "telemetry")
