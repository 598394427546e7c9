"""tool_executor: runs the planned tools concurrently (retrieval, form links, form files)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.state import GraphState


async def _retrieve(context: GraphContext, query: str, threshold: float) -> list[dict[str, Any]]:
    hits = await context.searcher.search(query, top_k=context.top_k, threshold=threshold)
    return [
        {
            "document": h.document,
            "chunk_id": h.chunk_id,
            "text": h.text,
            "score": h.score,
            "page": h.page,
            "heading": h.heading,
        }
        for h in hits
    ]


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
        for f in await context.forms.find(query)
    ]


async def tool_executor(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Run this loop's tool calls at once; the retrieval uses the loop's query."""
    start = time.perf_counter()
    context = runtime.context
    retrieval = state.get("retrieval", {})
    calls = state.get("plan", {}).get("tool_calls", [])
    names = [c["name"] for c in calls]
    jobs: dict[str, Any] = {}
    if "retrieve_documents" in names:
        jobs["evidence"] = _retrieve(
            context, retrieval.get("query", ""), retrieval.get("threshold", 0.0)
        )
    if "get_form_download_links" in names:
        query = state.get("normalized_question", "")
        jobs["forms"] = _forms(context, query, export="export_form_file" in names)
    results = dict(zip(jobs, await asyncio.gather(*jobs.values()), strict=True))
    update: GraphState = {
        "evidence": results.get("evidence", []),
        "decision_path": [f"tool_executor:{'+'.join(names) or 'none'}"],
        "timings_ms": {"tool_executor": round((time.perf_counter() - start) * 1000, 3)},
    }
    if "forms" in results:
        update["forms"] = results["forms"]
    return update
