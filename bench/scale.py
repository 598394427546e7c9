"""Search latency at scale (bench.retrieval's last part): 100k and 1M chunks, before and after.

Each size is a copy of the DRCD benchmark database grown with synthetic filler
(bench.filler). It is measured twice in the same run:

- "before": the schema and search code as they were before the search-at-scale
  changes of 2026-11-25, commit cd891c8 (revision 0012: a full HNSW index on
  `question_embedding`; the filtered keyword side joining every posting to its
  chunk; support cutting every sentence of a hit with jieba);
- "after": the code as it is (revision head).

Questions are asked in the same order in both; each search is timed end to
end (query embedding, keyword tokens, both sides, candidate details, support).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

import storage.search as search_module
import storage.support as support_module
from bench import filler
from bench.common import Question, connect, pct
from bench.searching import HYBRID, searchers
from bot.settings import Settings
from storage import db as dbmod
from storage.db import Database
from storage.search import HybridSearcher
from storage.search_sides import K1, MAX_KEYWORD_POSTINGS, B, IndexStats, finite, index_stats
from storage.search_types import QueryTerms, SearchFilters, filter_sql
from textkit.overlap import presence, stem
from textkit.scripts import plain
from textkit.sentences import split_sentences
from textkit.tokens import keyword_tokens, stopwords

BEFORE_REVISION = "0012"
KEYWORD = "keyword only (BM25 in Postgres)"
VECTOR = "vector only (pgvector HNSW)"
# label → (method of bench.searching, mode, top_k, filters)
TURN = SearchFilters(collections=("public",))
ROWS: dict[str, tuple[str, str, int, SearchFilters | None]] = {
    "hybrid (adaptive, default), top_k=15": (HYBRID, "hybrid", 15, None),
    "keyword only, top_k=15": (KEYWORD, "keyword", 15, None),
    "vector only, top_k=15": (VECTOR, "vector", 15, None),
    "hybrid, top_k=5, collection filter (what a turn asks)": (HYBRID, "hybrid", 5, TURN),
}
SERVER_SETTINGS = (
    "server_version",
    "shared_buffers",
    "effective_cache_size",
    "work_mem",
    "maintenance_work_mem",
    "jit",
    "random_page_cost",
    "max_parallel_workers_per_gather",
    "hnsw.ef_search",
    "hnsw.iterative_scan",
)


async def keyword_ids_before(
    session: AsyncSession,
    terms: QueryTerms,
    filters: SearchFilters,
    limit: int,
    content_only: bool = False,
) -> list[tuple[int, float]]:
    """The keyword side as it was at revision 0012 (a filter joined every posting)."""
    idf = terms.idf
    if content_only:
        skip = stopwords()
        idf = {t: v for t, v in idf.items() if t not in skip} or idf
    known = sorted((t for t, (_, df) in idf.items() if df > 0), key=lambda t: idf[t][1])
    selective: list[str] = []
    postings = 0
    for term in known:
        if selective and postings + idf[term][1] > MAX_KEYWORD_POSTINGS:
            break
        selective.append(term)
        postings += idf[term][1]
    if not selective:
        return []
    where, params = filter_sql(filters)
    join = f"JOIN chunks c ON c.id = p.chunk_id {where}" if where else ""
    rows = await session.execute(
        text(
            "SELECT p.chunk_id, sum(q.idf * p.tf * :k1p1 / (p.tf + :k1 * (1 - :b + :b *"
            " p.dl / :avgdl))) AS bm25 FROM unnest(CAST(:terms AS text[]),"
            " CAST(:idfs AS float8[])) AS q(term, idf) JOIN chunk_terms p ON p.term ="
            f" q.term {join} GROUP BY p.chunk_id ORDER BY bm25 DESC, p.chunk_id LIMIT :n"
        ),
        {
            "terms": selective,
            "idfs": [idf[t][0] for t in selective],
            "k1": K1,
            "k1p1": K1 + 1,
            "b": B,
            "avgdl": terms.avgdl,
            "n": limit,
            **params,
        },
    )
    return [(r[0], finite(r[1])) for r in rows]


def window_support_before(
    weights: dict[str, float],
    body: str,
    context: str = "",
    asks_number: bool = False,
    price_terms: frozenset[str] = frozenset(),
    heading: str = "",
) -> float:
    """storage.support.window_support as it was at revision 0012 (every sentence cut; no
    price held for the words naming it: `price_terms` and `heading` are not read)."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    head = plain(context)
    head_tokens = frozenset(keyword_tokens(context)) if context else frozenset()
    sentences = split_sentences(body) or [body]
    cut = [frozenset(keyword_tokens(s)) for s in sentences]
    normal = [plain(s) for s in sentences]
    best = 0.0
    for start in range(len(sentences)):
        end = start + support_module.WINDOW_SENTENCES
        if asks_number and not any(
            support_module._HAS_NUMBER.search(s) for s in sentences[start:end]
        ):
            continue
        tokens = head_tokens.union(*cut[start:end])
        stems = frozenset(stem(t) for t in tokens)
        text = " ".join([*normal[start:end], head])
        share = sum(w * presence(t, text, tokens, stems) for t, w in weights.items()) / total
        best = max(best, share)
        if end >= len(sentences):
            break
    return round(best, 4)


async def keyword_side_before(
    session: AsyncSession, terms: list[str], ranked: list[str], filters: SearchFilters, limit: int
) -> tuple[IndexStats, list[tuple[int, float]]]:
    """`keyword_side` as it was at revision 0012: the statistics, then the old ranking."""
    stats = await index_stats(session, terms)
    query = QueryTerms({t: stats.idf(t) for t in ranked}, stats.avgdl)
    return stats, await keyword_ids_before(session, query, filters, limit)


@contextmanager
def variant(url: str, name: str) -> Iterator[None]:
    """The database and search code of `name` ("before" or "after") for the block."""
    if name == "before":
        dbmod.downgrade(url, BEFORE_REVISION)
        keyword, support = search_module.keyword_side, support_module.window_support
        search_module.keyword_side = keyword_side_before
        support_module.window_support = window_support_before
        try:
            yield
        finally:
            search_module.keyword_side = keyword
            support_module.window_support = support
            dbmod.upgrade(url)
    else:
        dbmod.upgrade(url)
        yield


async def timed_searches(
    methods: dict[str, tuple[HybridSearcher, str]], questions: list[Question]
) -> dict[str, tuple[list[float], list[list[str]]]]:
    """Per row of ROWS: each question's latency (ms) and ranked documents."""
    out: dict[str, tuple[list[float], list[list[str]]]] = {r: ([], []) for r in ROWS}
    for q in questions:
        for label, (method, mode, top_k, filters) in ROWS.items():
            searcher = methods[method][0]
            t0 = time.perf_counter()
            hits = await searcher.search(q.text, top_k=top_k, mode=mode, filters=filters)
            out[label][0].append((time.perf_counter() - t0) * 1000)
            ranked = list(dict.fromkeys(h.document for h in hits))
            out[label][1].append(ranked)
    return out


@asynccontextmanager
async def explained(plans: list[str]) -> AsyncIterator[None]:
    """EXPLAIN (ANALYZE, BUFFERS) of every query run in the block, into `plans`."""
    original = AsyncSession.execute

    async def execute(self: AsyncSession, statement: Any, params: Any = None, **kw: Any) -> Any:
        sql = str(statement)
        # every query (the keyword side's statement begins WITH); not the SETs
        if sql.lstrip().startswith(("SELECT", "WITH")):
            res = await original(self, text(f"EXPLAIN (ANALYZE, BUFFERS) {sql}"), params)
            plans.append(sql[:160] + "\n" + "\n".join(r[0] for r in res))
        return await original(self, statement, params, **kw)

    AsyncSession.execute = execute  # type: ignore[method-assign]
    try:
        yield
    finally:
        AsyncSession.execute = original  # type: ignore[method-assign]


async def server_settings(db: Database) -> dict[str, str]:
    """The server's settings that bear on search speed."""
    out = {}
    async with db.sessions() as s:
        for name in SERVER_SETTINGS:
            # hnsw.*: the server's (or database's) value, not what a search set on this
            # pooled connection (reset_val is in raw units for the others: SHOW them)
            default = (
                await s.scalar(
                    text("SELECT reset_val FROM pg_settings WHERE name = :name"), {"name": name}
                )
                if name.startswith("hnsw.")
                else None
            )
            shown = (await s.execute(text(f"SHOW {name}"))).scalar_one()
            out[name] = str(shown if default is None else default)
        sizes = await s.execute(
            text(
                "SELECT relname, pg_size_pretty(pg_relation_size(oid)) FROM pg_class WHERE relname"
                " IN ('chunks', 'chunk_terms', 'ix_chunks_embedding', 'ux_chunk_terms_postings',"
                " 'ix_chunk_terms_chunk', 'ix_chunks_keywords', 'ix_chunks_question_embedding')"
            )
        )
        out.update({f"size {r[0]}": r[1] for r in sizes})
    return out


async def measure(
    url: str, settings: Settings, questions: list[Question], explain: Question
) -> dict[str, Any]:
    """Latency and R@5 of each row of ROWS over `questions`; plans of one search."""
    db = connect(url)
    methods = searchers(db, settings)
    await methods[HYBRID][0].search("warm up", top_k=1)
    load_before = os.getloadavg()[0]
    found = await timed_searches(methods, questions)
    plans: list[str] = []
    async with explained(plans):
        await methods[HYBRID][0].search(explain.text, top_k=5, filters=TURN)
    out: dict[str, Any] = {
        "questions": len(questions),
        "load_average": [load_before, os.getloadavg()[0]],
        "plans": plans,
        "settings": await server_settings(db),
        "rows": {},
    }
    golds = [q.passage for q in questions]
    for label, (latency, ranked) in found.items():
        hit = [g in r[:5] for r, g in zip(ranked, golds, strict=True)]
        out["rows"][label] = {
            "R@5": sum(hit) / len(hit),
            "hits@5": hit,
            "p50_ms": pct(latency, 50),
            "p95_ms": pct(latency, 95),
        }
    await db.dispose()
    return out


async def scale_runs(
    targets: list[int],
    settings: Settings,
    questions: list[Question],
    before_questions: int,
    reuse: bool,
) -> dict[str, Any]:
    """Build (or reuse) each size, then measure it before and after; rows for the table."""
    results: dict[str, Any] = {"sizes": {}, "rows": []}
    for target in targets:
        url = await asyncio.to_thread(filler.scale_url, target, not reuse)
        build = await asyncio.to_thread(filler.build, url, target)
        chunks = await asyncio.to_thread(filler.chunk_count, url)
        size: dict[str, Any] = {"chunks": chunks, "build_s": build}
        for name in ("before", "after"):
            asked = questions[:before_questions] if name == "before" else questions
            with variant(url, name):
                size[name] = await measure(url, settings, asked, questions[0])
            print(f"done {chunks} chunks, {name}", flush=True)
        for label in ROWS:
            b, a = size["before"]["rows"][label], size["after"]["rows"][label]
            # recall before and after on the questions both were asked
            n = len(b["hits@5"])
            same = f"{sum(b['hits@5']) / n:.3f} / {sum(a['hits@5'][:n]) / n:.3f}"
            results["rows"].append(
                [
                    f"{chunks:,}",
                    label,
                    a["R@5"],
                    same,
                    b["p50_ms"],
                    b["p95_ms"],
                    a["p50_ms"],
                    a["p95_ms"],
                ]
            )
        results["sizes"][str(target)] = size
    return results


HEADERS = [
    "chunks",
    "search",
    "R@5",
    "R@5 before / after, questions asked of both",
    "p50 ms before",
    "p95 ms before",
    "p50 ms after",
    "p95 ms after",
]
