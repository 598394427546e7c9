"""query_builder: the retrieval query and threshold of each loop, without an LLM call.

Loop 1 searches the planner's query (tool_executor also searches the user's
own question beside it, so a planner that misreads the question cannot hide
the answer) at the strictest threshold; each retry lowers the threshold
(0.65 → 0.50 → 0.35) and searches the next query not tried yet: the
planner's alternative phrasings first (written in the same planning call, so
a retry costs no LLM call), then the question without its question words.
"""

from __future__ import annotations

import re

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.nodes.recording import Step, recorded
from graph.state import GraphState, Retrieval
from textkit.question_words import QUERY_FILLER


def rewrite_for_retry(query: str) -> str:
    """The query without question words and punctuation (keeps it if nothing is left)."""
    stripped = re.sub(r"\s+", " ", QUERY_FILLER.sub(" ", query)).strip()
    return stripped or query


def retry_queries(state: GraphState) -> list[str]:
    """The queries later loops may search, in order: alternates, then the rules rewrite."""
    plan = state.get("plan", {})
    question = state.get("standalone_question") or state.get("normalized_question", "")
    base = plan.get("query") or question
    queries = [*plan.get("alternates", []), rewrite_for_retry(question), rewrite_for_retry(base)]
    return [q for q in dict.fromkeys(q.strip() for q in queries) if q]


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
    query = base
    if loop > 1:
        tried = {*failed, base, state.get("normalized_question", "")}
        # nothing new left: the same query again, regraded at the lower threshold
        query = next((q for q in retry_queries(state) if q not in tried), failed[-1])
    return {
        "loop": loop,
        "query": query,
        "threshold": threshold,
        "status": "pending",
        "failed_queries": failed,
    }


@recorded("query_builder")
async def query_builder(state: GraphState, runtime: Runtime[GraphContext]) -> Step:
    """Set this loop's retrieval query and threshold."""
    retrieval = build_query(state, runtime.context)
    return Step({"retrieval": retrieval}, f"query_builder:loop{retrieval['loop']}")
