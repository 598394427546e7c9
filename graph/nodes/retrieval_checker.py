"""retrieval_checker: grade the evidence and decide: generate, retry, or fall back."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.state import GraphState, Retrieval

MIN_PASSING = 1


def grade(
    state: GraphState, max_loops: int, floor: float
) -> tuple[Retrieval, list[dict[str, Any]]]:
    """The loop's outcome and the evidence to answer from.

    The loop passes when a passage reaches this loop's threshold; the answer may
    then also draw on passages above the loosest threshold (`floor`), which
    often hold the detail ("The fee is…") while the best one names the topic.
    Those come after the passing ones, marked "support" (response_synth
    discounts their sentences), the passing ones marked "pass".
    """
    retrieval: Retrieval = dict(state.get("retrieval", {}))  # type: ignore[assignment]
    threshold = float(retrieval.get("threshold", 0.0))
    evidence = state.get("evidence", [])
    passed = [e for e in evidence if e["score"] >= threshold]
    retrieval["pass_rate"] = round(len(passed) / len(evidence), 3) if evidence else 0.0
    has_forms = bool(state.get("forms"))
    calls = state.get("plan", {}).get("tool_calls")
    if calls is not None and all(c["name"] != "retrieve_documents" for c in calls):
        # nothing was searched (forms only): a retry could not find more
        retrieval["status"] = "generate" if has_forms else "fallback"
        retrieval["pass_rate"] = 0.0
        return retrieval, []
    if len(passed) >= MIN_PASSING or has_forms:
        retrieval["status"] = "generate"
        passed = [{**e, "graded": "pass"} for e in passed]
        passed += [{**e, "graded": "support"} for e in evidence if floor <= e["score"] < threshold]
    elif int(retrieval.get("loop", 1)) < max_loops:
        retrieval["status"] = "retry"
    else:
        retrieval["status"] = "fallback"
    return retrieval, passed


def retrieval_checker(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Keep only graded evidence and set the loop's status."""
    start = time.perf_counter()
    context = runtime.context
    retrieval, passed = grade(state, context.max_loops, min(context.thresholds))
    return {
        "retrieval": retrieval,
        "evidence": passed,
        "decision_path": [
            f"retrieval_checker:{retrieval['status']}:pass_rate={retrieval['pass_rate']}"
        ],
        "timings_ms": {"retrieval_checker": round((time.perf_counter() - start) * 1000, 3)},
    }
