"""tool_executor: runs the planned tools concurrently (retrieval, form links, form files).

Retrieval always searches at the loosest threshold and merges the hits into the
turn's candidates, so a later loop can regrade them at its own threshold
without searching again; retrieval_checker does the grading. The first loop
searches the planner's query and the user's own question at once. A split
question (graph.question_parts) also searches each part's own query, its
candidates kept per part (retrieval_checker grades each part on its own).

A question asking a kind of answer (a price, a duration...) also reads its leading
document's further passages holding it (graph.further_passages), and a Chinese
question reads the documents in the other Chinese script by the question written in
it (graph.other_script).

With a reranker (RERANK_BASE_URL; graph.rerank) each search brings up to
RERANK_CANDIDATES fused hits of each language group, the reranker reorders
them, and the top_k of each group go on as without one; its decision
(`rerank:used`, `rerank:skipped:<reason>`) precedes the step's in the path.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from graph.answer_safety import redact_evidence
from graph.context import GraphContext
from graph.cross_entries import add_question_leads
from graph.cross_language import add_meaning_leads, add_sentence_cosines
from graph.cross_marks import crosses
from graph.entry_question import (
    add_question_cosines,
    add_rival_cosines,
    candidate_of,
    few_rivals,
)
from graph.everyday_questions import add_everyday_cosines
from graph.further_passages import FURTHER_KEPT, further_passages
from graph.grounding import is_grounded
from graph.nodes.query_builder import rewrite_for_retry
from graph.nodes.recording import Step, recorded
from graph.other_script import fold_scripts, in_script, other_script, unread_script
from graph.rerank import RERANK_CANDIDATES, rerank_hits, turn_decision
from graph.state import GraphState


async def _search(
    context: GraphContext, query: str, threshold: float, question: str, notes: list[str]
) -> list[Any]:
    """The search's hits; with a reranker, a wider pool reordered by it, then each
    language group cut to top_k (its decision appended to `notes`)."""
    reranker = context.reranker
    hits = await context.searcher.search(
        query,
        # the reranker's pool: with top_k alone it could only shuffle what would be kept
        top_k=max(context.top_k, RERANK_CANDIDATES) if reranker else context.top_k,
        threshold=threshold,
        filters=context.search_filters,
        per_document=context.chunks_per_document,
        question=question or None,
        # passages in another language are judged by meaning here (graph.cross_language)
        other_languages=True,
    )
    if reranker is None or not hits:  # a search that found nothing has nothing to reorder
        return list(hits)
    # it judges the passages against what the user asked, whatever query found them
    hits, note = await rerank_hits(reranker, question or query, hits, len(hits))
    notes.append(note)
    # the search's shape kept: the question's language first, top_k of each group
    native = [h for h in hits if not getattr(h, "cross_language", False)]
    other = [h for h in hits if getattr(h, "cross_language", False)]
    return native[: context.top_k] + other[: context.top_k]


async def _read(
    context: GraphContext, query: str, threshold: float, question: str, notes: list[str]
) -> tuple[list[Any], list[Any]]:
    """The search's hits, and the leading documents' further passages holding the kind of
    answer asked (graph.further_passages: it may rank below those a turn reads of them)."""
    hits = await _search(context, query, threshold, question, notes)
    return hits, await further_passages(context, query, threshold, question, hits)


async def _retrieve(
    context: GraphContext, query: str, threshold: float, question: str, notes: list[str]
) -> list[dict[str, Any]]:
    hits, further = await _read(context, query, threshold, question, notes)
    script = other_script(question or query)
    if script is not None and unread_script(hits, script):
        # the documents in the other Chinese script are read by the question written in
        # it: the embedder keeps the scripts apart (graph.other_script)
        again, more = await _read(
            context, in_script(query, script), threshold, in_script(question, script), notes
        )
        hits = fold_scripts(hits, again, script)
        further = fold_scripts(further, more, script)
    hits = [*hits, *further]
    ids = {h.chunk_id for h in further}
    found = [
        {**candidate_of(h, rank), "further": h.chunk_id in ids} for rank, h in enumerate(hits, 1)
    ]
    # a document's sentences addressed to the assistant never reach a model or an answer
    kept = redact_evidence(found)[0]
    # passages in another language are judged by their sentences' meaning
    await add_sentence_cosines(context.embedder, question, kept)
    # an FAQ entry answers the question it states, not its page's topic
    await add_question_cosines(context.embedder, question, kept)
    # and leads the entries nearest the question that this search left out
    await add_rival_cosines(
        context.embedder, context.searcher, question, kept, context.search_filters
    )
    # and, on a small FAQ, comes about as near the question as everyday questions about
    # other things do
    await add_everyday_cosines(context.embedder, question, [i for i in kept if few_rivals(i)])
    return kept


def merge_candidates(
    earlier: list[dict[str, Any]], hits: list[dict[str, Any]], limit: int
) -> list[dict[str, Any]]:
    """Earlier candidates and new hits, one entry per chunk (its best score), in the
    search's order (its best rank in any search; then by score).

    Grounded passages (graph.grounding) come before the others: they are what
    the answer is drawn from. Passages in another language than the question
    (graph.cross_language) come after those in its own, `limit` of each: they
    never take the place of one in the question's language.
    """
    best: dict[int, dict[str, Any]] = {}
    for item in [*hits, *earlier]:
        kept = best.get(item["chunk_id"])
        rank = min(item.get("rank", limit), kept.get("rank", limit)) if kept else None
        if kept is None or item["score"] > kept["score"]:
            best[item["chunk_id"]] = item
        if rank is not None:
            best[item["chunk_id"]] = {**best[item["chunk_id"]], "rank": rank}
    # an FAQ entry answers only when it leads the other entries retrieved for the
    # question, in every search of the turn (graph.cross_entries, graph.entry_question);
    # set on copies: the earlier candidates are the previous state's
    merged = [{**c} for c in best.values()]
    add_question_leads(merged)
    # a passage in another language answers only when it stands out from the other
    # documents' (graph.cross_language)
    add_meaning_leads(merged)
    ordered = sorted(merged, key=lambda c: (not is_grounded(c), c.get("rank", limit), -c["score"]))
    native = [c for c in ordered if not crosses(c)]
    other = [c for c in ordered if crosses(c)]
    return [*_with_further(native, limit), *_with_further(other, limit)]


def _with_further(ordered: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The first `limit` of `ordered`, and the further passages holding the kind asked
    (graph.further_passages) that come after them: read besides, never in place of one."""
    beyond = [c for c in ordered[limit:] if c.get("further")]
    return ordered[:limit] + beyond[: 2 * FURTHER_KEPT]


def part_query(part: dict[str, str], loop: int) -> str | None:
    """What a part searches at `loop`: its query, then the query without its question
    words; None after that (later loops regrade its candidates at a looser threshold)."""
    if loop <= 1:
        return part["query"]
    retry = rewrite_for_retry(part["query"])
    return retry if loop == 2 and retry != part["query"] else None


async def search_parts(
    state: GraphState, context: GraphContext, notes: list[str] | None = None
) -> list[list[dict[str, Any]]]:
    """Each part of a split question searched with its own query (graph.question_parts),
    its passages tested against the part alone; each part's candidates merged across loops.

    A part already answered by an earlier loop is not searched again. The
    reranker's decisions are appended to `notes`.
    """
    notes = [] if notes is None else notes
    parts = state.get("plan", {}).get("parts", [])
    loop = int(state.get("retrieval", {}).get("loop", 1))
    earlier = state.get("part_candidates") or [[] for _ in parts]
    answered = state.get("part_evidence") or [[] for _ in parts]
    queries = [None if answered[i] else part_query(p, loop) for i, p in enumerate(parts)]
    floor = min(context.thresholds)
    found = await asyncio.gather(
        *(_retrieve(context, q, floor, q, notes) for q in queries if q is not None)
    )
    hits = iter(found)
    return [
        merge_candidates(earlier[i], next(hits) if q is not None else [], context.top_k)
        for i, q in enumerate(queries)
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
        for f in await context.forms.find(query, collections=context.collections)
    ]


@recorded("tool_executor", lane=True)
async def tool_executor(state: GraphState, runtime: Runtime[GraphContext]) -> Step:
    """Run this loop's tool calls at once; the retrieval uses the loop's query."""
    context = runtime.context
    retrieval = state.get("retrieval", {})
    calls = state.get("plan", {}).get("tool_calls", [])
    names = [c["name"] for c in calls]
    jobs: dict[str, Any] = {}
    query = retrieval.get("query", "")
    # a query already searched this turn would find the same chunks again
    searched = "retrieve_documents" in names and query in retrieval.get("failed_queries", [])
    parts = state.get("plan", {}).get("parts", [])
    notes: list[str] = []  # the reranker's decision of each search (graph.rerank)
    if "retrieve_documents" in names and parts:
        # a split question: each part is searched on its own (its candidates kept apart),
        # and the whole question as before: it answers when no part does
        jobs["parts"] = search_parts(state, context, notes)
    if "retrieve_documents" in names and not searched:
        own = state.get("standalone_question") or state.get("normalized_question", "")
        # every passage is tested against what the user asked, whatever query found it
        jobs["hits"] = _retrieve(context, query, min(context.thresholds), own, notes)
        if retrieval.get("loop", 1) == 1 and own.strip() and own != query:
            # the user's own words are always searched too: a planner query that
            # misreads the question (or translates it wrongly) cannot hide the answer
            jobs["own"] = _retrieve(context, own, min(context.thresholds), own, notes)
    if "get_form_download_links" in names:
        asked = state.get("normalized_question", "")
        jobs["forms"] = _forms(context, asked, export="export_form_file" in names)
    results = dict(zip(jobs, await asyncio.gather(*jobs.values()), strict=True))
    label = "+".join(names) or "none"
    if "own" in jobs:
        label += "+own_question"
    update: GraphState = {}
    if "parts" in results:
        update["part_candidates"] = results["parts"]
        label += f"+parts:{len(parts)}"
    if "retrieve_documents" in names:
        found = [*results.get("hits", []), *results.get("own", [])]
        candidates = merge_candidates(state.get("candidates", []), found, context.top_k)
        update["candidates"] = candidates
        update["evidence"] = candidates
    if "forms" in results:
        update["forms"] = results["forms"]
    reranked = turn_decision(notes)
    if reranked is not None:
        update["decision_path"] = [reranked]
    return Step(update, f"tool_executor:{label}" + (":cached" if searched else ""))
