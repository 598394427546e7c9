"""The FAQ entries nearest a question, each once: the vector side of an "entries" search.

An entry is the chunk group of one question in one document (`entry_question`:
a one-entry file, or one question of a page). A long answer is cut into many
chunks, and every one of them carries its entry's question and question
vector: the nearest chunks of a collection can all be one entry's, and a
search for the entries an entry must lead (graph.entry_question) then finds no
other entry at all. Here the nearest chunks and entry questions are read in a
pool larger than the entries wanted, collapsed to each entry's best chunk (the
same cosine as the vector side's, storage.search_sides.ENTRY_COSINE), and the
pool grows until it holds that many entries or the collection has no more.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.search_sides import CHUNK_COSINE, ENTRY_COSINE, finite, hnsw_settings
from storage.search_types import SearchFilters, filter_sql

# The pool of chunks read for `limit` entries starts at this many per entry, and
# doubles while it is full and holds fewer entries than wanted, up to MAX_POOL
# (pgvector's largest `ef_search`, which grows with it: a bound on one search's
# cost, not a figure of any collection).
POOL_PER_ENTRY = 4
MAX_POOL = 1000


async def entry_ids(
    session: AsyncSession, vec: str, filters: SearchFilters, limit: int, questions: bool
) -> list[tuple[int, float]]:
    """The best chunk of each of the `limit` FAQ entries nearest `vec`, by the entry's
    cosine (the mean of its chunk's and its question's with `questions`, else the
    chunk's), best first. Chunks of no entry are not returned."""
    pool = max(1, POOL_PER_ENTRY * limit)
    while True:
        found, full = await _pooled(session, vec, filters, limit, pool, questions)
        if len(found) >= limit or not full or pool >= MAX_POOL:
            return found
        pool = min(MAX_POOL, 2 * pool)


async def _pooled(
    session: AsyncSession,
    vec: str,
    filters: SearchFilters,
    limit: int,
    pool: int,
    questions: bool,
) -> tuple[list[tuple[int, float]], bool]:
    """The `limit` nearest entries among the `pool` nearest chunks and the `pool` nearest
    entry questions, and whether either half was full (more may lie beyond it)."""
    where, params = filter_sql(filters)
    entries = f"{where} AND" if where else "WHERE"
    await hnsw_settings(session, pool, filtered=bool(where))
    # each half through its own HNSW index (the question index is partial: FAQ chunks)
    question_half = (
        f"(SELECT c.id FROM chunks c {entries} c.question_embedding IS NOT NULL"
        " ORDER BY c.question_embedding <=> CAST(:vec AS vector) LIMIT :pool)"
        if questions
        else "(SELECT NULL::bigint AS id WHERE false)"
    )
    cosine = ENTRY_COSINE if questions else CHUNK_COSINE
    rows = (
        await session.execute(
            text(
                f"WITH near AS (SELECT c.id FROM chunks c {where}"
                " ORDER BY c.embedding <=> CAST(:vec AS vector) LIMIT :pool),"
                f" asked AS {question_half},"
                # one row per entry: its best chunk
                " best AS (SELECT DISTINCT ON (c.document_id, c.entry_question) c.id,"
                f" {cosine} AS cos FROM chunks c"
                " WHERE c.id IN (SELECT id FROM near UNION SELECT id FROM asked)"
                " AND c.entry_question IS NOT NULL"
                " ORDER BY c.document_id, c.entry_question, 2 DESC, c.id)"
                # the pool's counts in every row (one row, id NULL, when no entry is near)
                " SELECT t.id, t.cos, n.count, a.count FROM (SELECT count(*) FROM near) n"
                " CROSS JOIN (SELECT count(*) FROM asked) a LEFT JOIN LATERAL"
                " (SELECT id, cos FROM best ORDER BY cos DESC, id LIMIT :n) t ON true"
                " ORDER BY t.cos DESC, t.id"
            ),
            {"vec": vec, "pool": pool, "n": limit, **params},
        )
    ).all()
    found = [(int(r[0]), finite(r[1])) for r in rows if r[0] is not None]
    full = bool(rows) and max(int(rows[0][2]), int(rows[0][3])) >= pool
    return found, full
