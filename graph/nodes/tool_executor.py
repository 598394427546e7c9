"""tool_executor: runs the planned tools concurrently (retrieval, form links, form files).

Retrieval always searches at the loosest threshold and merges the hits into the
turn's candidates, so a later loop can regrade them at its own threshold
without searching again; retrieval_checker does the grading.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langgraph.runtime import Runtime

from graph.answer_safety import redact_evidence
from graph.context import GraphContext
from graph.state import GraphState


async def _retrieve(context: GraphContext, query: str, threshold: float) -> list[dict[str, Any]]:
    hits = await context.searcher.search(
        query, top_k=context.top_k, threshold=threshold, filters=context.search_filters
    )
    found = [
        {
            "document": h.document,
            "chunk_id": h.chunk_id,
            "text": h.text,
            "score": h.score,
            "page": h.page,
            "heading": h.heading,
            "url": getattr(h, "url", None),
        }
        for h in hits
    ]
    # a document's sentences addressed to the assistant never reach a model or an answer
    return redact_evidence(found)[0]


def merge_candidates(
    earlier: list[dict[str, Any]], hits: list[dict[str, Any]], limit: int
) -> list[dict[str, Any]]:
    """The new hits in search order, then earlier candidates they did not find again.

    The search order (fused ranking) is kept rather than re-sorting by relevance:
    it places the gold passage first more often. The newest query comes first
    because it was written after the earlier ones failed; a chunk found twice
    keeps its best score.
    """
    earlier_score = {c["chunk_id"]: c["score"] for c in earlier}
    merged = [
        {**h, "score": max(h["score"], earlier_score.get(h["chunk_id"], h["score"]))} for h in hits
    ]
    found = {h["chunk_id"] for h in hits}
    merged += [c for c in earlier if c["chunk_id"] not in found]
    return merged[:limit]


async def _forms(context: GraphContext, query: str, export: bool) -> list[dict[str, Any]]:
    """Matching forms; with `export`, stored files are marked for the adapter to send.

    The bytes stay out of the graph state: adapters fetch them with
    `AnswerService.export_form_file(name)`.
    """
    if context.forms is None:
        return []
    return [
        {
            "name": f.name,
            "url": f.url,
            "file_name": f.file_name,
            "send_file": export and f.file_name is not None,
        }
        for f in await context.forms.find(query, collections=context.collections)
    ]


async def tool_executor(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Run this loop's tool calls at once; the retrieval uses the loop's query."""
    start = time.perf_counter()
    context = runtime.context
    retrieval = state.get("retrieval", {})
    calls = state.get("plan", {}).get("tool_calls", [])
    names = [c["name"] for c in calls]
    jobs: dict[str, Any] = {}
    query = retrieval.get("query", "")
    # a query already searched this turn would find the same chunks again
    searched = "retrieve_documents" in names and query in retrieval.get("failed_queries", [])
    if "retrieve_documents" in names and not searched:
        jobs["hits"] = _retrieve(context, query, min(context.thresholds))
    if "get_form_download_links" in names:
        asked = state.get("normalized_question", "")
        jobs["forms"] = _forms(context, asked, export="export_form_file" in names)
    results = dict(zip(jobs, await asyncio.gather(*jobs.values()), strict=True))
    label = "+".join(names) or "none"
    update: GraphState = {
        "decision_path": [f"tool_executor:{label}" + (":cached" if searched else "")],
        "timings_ms": {"tool_executor": round((time.perf_counter() - start) * 1000, 3)},
    }
    if "retrieve_documents" in names:
        candidates = merge_candidates(
            state.get("candidates", []), results.get("hits", []), context.top_k
        )
        update["candidates"] = candidates
        update["evidence"] = candidates
    if "forms" in results:
        update["forms"] = results["forms"]
    return update
