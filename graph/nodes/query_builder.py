"""query_builder: the retrieval query and threshold of each loop.

Loop 1 uses the planner's query at the strictest threshold; each retry lowers
the threshold (0.65 → 0.50 → 0.35) and rewrites the query. The rules rewrite
(question words dropped, so the content words weigh more) costs nothing; the
LLM rewrite, which sees the queries that failed, costs a call and is spent only
when no candidate found so far reaches the new threshold: otherwise the
candidates already answer at this loop, and a question that is answered stays
within the budget of two LLM calls (planning, synthesis).
"""

from __future__ import annotations

import re
import time
from typing import Literal

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.llm import rewrite
from graph.state import GraphState, Retrieval

_QUESTION_WORDS = re.compile(
    r"\b(how|what|when|where|which|who|why|can|could|do|does|is|are|i|we|you|the|a|an|to|of|"
    r"please|tell me|about)\b|請問|请问|如何|怎麼|怎么|什麼|什么|哪裡|哪里|哪些|為什麼|为什么|"
    r"可以|是否|嗎|吗|呢|我|你|的|[?？!！,，。.]",
    re.IGNORECASE,
)


def rewrite_for_retry(query: str) -> str:
    """The query without question words and punctuation (keeps it if nothing is left)."""
    stripped = re.sub(r"\s+", " ", _QUESTION_WORDS.sub(" ", query)).strip()
    return stripped or query


def build_query(state: GraphState, context: GraphContext) -> Retrieval:
    """The next loop's query, threshold and bookkeeping."""
    previous = state.get("retrieval", {})
    loop = int(previous.get("loop", 0)) + 1
    base = state.get("plan", {}).get("query") or state.get("normalized_question", "")
    failed = list(previous.get("failed_queries", []))
    if loop > 1:
        failed.append(previous.get("query", base))
    thresholds = context.thresholds
    threshold = thresholds[min(loop, len(thresholds)) - 1]
    best = max((c["score"] for c in state.get("candidates", [])), default=-1.0)
    rewrite_by: Literal["none", "rules", "llm"] = "none"
    if loop > 1:
        rewrite_by = "llm" if context.llm is not None and best < threshold else "rules"
    return {
        "loop": loop,
        "query": base if loop == 1 else rewrite_for_retry(base),
        "threshold": threshold,
        "status": "pending",
        "failed_queries": failed,
        "rewrite_by": rewrite_by,
    }


async def query_builder(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Set this loop's retrieval query and threshold (an LLM rewrite on retries only)."""
    start = time.perf_counter()
    context = runtime.context
    retrieval = build_query(state, context)
    calls = 0
    waited = 0.0
    if retrieval["rewrite_by"] == "llm":
        asked = time.perf_counter()
        question = state.get("standalone_question") or state.get("normalized_question", "")
        failed = retrieval.get("failed_queries", [])
        better, calls = await rewrite(context.llm, question, failed, context.llm_limits)
        waited = (time.perf_counter() - asked) * 1000
        if better and better not in failed:
            retrieval["query"] = better
    return {
        "retrieval": retrieval,
        "llm_calls": calls,
        "decision_path": [
            f"query_builder:loop{retrieval['loop']}"
            + (f":rewrite={retrieval['rewrite_by']}" if retrieval["loop"] > 1 else "")
        ],
        "timings_ms": {
            "query_builder": round((time.perf_counter() - start) * 1000, 3),
            **({"llm:rewrite": round(waited, 3)} if calls else {}),
        },
    }
