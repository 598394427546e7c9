"""The SQL of each side of a hybrid search and of reading its candidates.

- vector side: the nearest chunks and the nearest FAQ entry questions, each
  through its own HNSW index;
- keyword side: BM25 straight from the postings (`chunk_terms`);
- details: every candidate's text, place, cosine and keyword coverage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.ranking import coverage_weights, relevance
from storage.search_types import QueryTerms, SearchFilters, SearchHit, filter_sql
from textkit.tokens import stopwords

K1, B = 1.2, 0.75
# BM25 uses the rarest query terms whose postings add up to at most this many
# rows: very common terms ("的", "the") barely move a BM25 ranking but would
# make every query read a posting for nearly every chunk.
MAX_KEYWORD_POSTINGS = 6000
# A chunk's cosine with the query; an FAQ entry's chunk averages in its question's.
CHUNK_COSINE = "1 - (c.embedding <=> CAST(:vec AS vector))"
ENTRY_COSINE = (
    "CASE WHEN c.question_embedding IS NULL THEN 1 - (c.embedding <=> CAST(:vec AS vector))"
    " ELSE 1 - ((c.embedding <=> CAST(:vec AS vector))"
    " + (c.question_embedding <=> CAST(:vec AS vector))) / 2 END"
)


def finite(cosine: float | None) -> float:
    """A cosine as a float; 0 for NULL or NaN (a zero vector has no direction)."""
    value = float(cosine) if cosine is not None else 0.0
    return value if math.isfinite(value) else 0.0


async def hnsw_settings(session: AsyncSession, limit: int, filtered: bool) -> None:
    """HNSW search options for what `session` runs next, where the defaults will not do:
    `ef_search` for more than pgvector's 40 candidates, the iterative scan for a filter.

    In a transaction they hold until it ends (`SET LOCAL`). In autocommit they are the
    connection's and are remembered with it (`connection.info`, which SQLAlchemy
    clears when it replaces the connection): a connection already set so costs no
    round trip, and one set for another search is reset to the server's own values
    (an operator's `ALTER DATABASE … SET hnsw.ef_search` still applies otherwise).
    Session-level settings need a session per connection: a direct connection or a
    pooler in session mode, as the conversation locks and LISTEN do.
    """
    wanted = (int(limit) if limit > 40 else None, "relaxed_order" if filtered else None)
    names = ("hnsw.ef_search", "hnsw.iterative_scan")
    connection = await session.connection()
    sync = connection.sync_connection
    autocommit = sync is not None and sync.get_execution_options().get("isolation_level") == (
        "AUTOCOMMIT"
    )
    if autocommit:
        had = connection.info.get("hnsw", (None, None))
        # values of our own (an int, a fixed word), never user input: one simple query
        statements = [
            f"SET {name} = {value}" if value is not None else f"RESET {name}"
            for name, value, old in zip(names, wanted, had, strict=True)
            if value != old
        ]
    else:
        statements = [
            f"SET LOCAL {name} = {value}"
            for name, value in zip(names, wanted, strict=True)
            if value is not None
        ]
    if statements:
        await session.execute(text("; ".join(statements)))
    if autocommit:
        connection.info["hnsw"] = wanted


async def vector_ids(
    session: AsyncSession, vec: str, filters: SearchFilters, limit: int, questions: bool
) -> list[tuple[int, float]]:
    """The `limit` nearest chunks and FAQ entry questions (`questions`), by chunk cosine."""
    where, params = filter_sql(filters)
    # the question half reads FAQ chunks only (a plan without the index would
    # otherwise pad it with chunks that have no question)
    entries = f"{where} AND" if where else "WHERE"
    await hnsw_settings(session, limit, filtered=bool(where))
    # The nearest chunks and the nearest FAQ entry questions (each through its own
    # HNSW index), ranked by the chunk's cosine: an entry's is the mean of its
    # chunk's and its question's, so a paraphrase of the question finds the entry.
    question_half = (
        f" UNION (SELECT c.id FROM chunks c {entries} c.question_embedding IS NOT NULL"
        " ORDER BY c.question_embedding <=> CAST(:vec AS vector) LIMIT :n)"
        if questions
        else ""
    )
    cosine = ENTRY_COSINE if questions else CHUNK_COSINE
    rows = await session.execute(
        text(
            f"SELECT c.id, {cosine} FROM chunks c WHERE c.id IN ("
            f"(SELECT c.id FROM chunks c {where}"
            f" ORDER BY c.embedding <=> CAST(:vec AS vector) LIMIT :n){question_half})"
            " ORDER BY 2 DESC, c.id LIMIT :n"
        ),
        {"vec": vec, "n": limit, **params},
    )
    return [(r[0], finite(r[1])) for r in rows]


@dataclass(frozen=True)
class IndexStats:
    """What the index says of a query's terms: chunk count, token total, the embedder its
    vectors come from, and each known term's document frequency."""

    chunks: int
    tokens: int
    embedding_model: str | None
    dfs: dict[str, int]

    def idf(self, term: str) -> tuple[float, int]:
        """The term's BM25 IDF and its document frequency (0 when unknown); `keyword_side`
        computes the same in SQL."""
        df = self.dfs.get(term, 0)
        return math.log(1 + (self.chunks - df + 0.5) / (df + 0.5)), df

    @property
    def avgdl(self) -> float:
        """The mean chunk length in tokens (at least 1)."""
        return max(1.0, self.tokens / max(1, self.chunks))


async def index_stats(session: AsyncSession, terms: list[str]) -> IndexStats:
    """The index's statistics for `terms`, without a ranking (`keyword_side` reads them
    with its own)."""
    row = (
        await session.execute(
            text(
                "SELECT m.chunk_count, coalesce(array_agg(t.term) FILTER (WHERE t.term IS"
                " NOT NULL), '{}'), coalesce(array_agg(t.df) FILTER (WHERE t.term IS NOT"
                " NULL), '{}'), m.token_total, m.embedding_model FROM index_meta m"
                " LEFT JOIN keyword_terms t ON t.term = ANY(:terms)"
                " GROUP BY m.chunk_count, m.token_total, m.embedding_model"
            ),
            {"terms": terms},
        )
    ).one()
    return IndexStats(
        int(row[0]), int(row[3]), row[4], dict(zip(row[1], map(int, row[2]), strict=True))
    )


def content_terms(tokens: list[str]) -> list[str]:
    """The distinct tokens without question words (all of them when nothing else is left)."""
    skip = stopwords()
    return sorted({t for t in tokens if t not in skip} or set(tokens))


async def keyword_side(
    session: AsyncSession,
    terms: list[str],
    ranked: list[str],
    filters: SearchFilters,
    limit: int,
) -> tuple[IndexStats, list[tuple[int, float]]]:
    """The index's statistics for `terms` and the `limit` best chunks by BM25 over the
    `ranked` ones, in one statement: one round trip, where reading the statistics
    first and ranking after took two.

    BM25 straight from the postings of the rarest ranked terms whose postings add
    up to at most MAX_KEYWORD_POSTINGS (the rarest always): an index-only scan of
    that many rows; common terms, left out, carry almost no IDF weight. IDF and the
    mean chunk length come from `index_meta` in the same statement.
    """
    where, params = filter_sql(filters)
    scores = (
        "SELECT p.chunk_id, sum(sel.idf * p.tf * :k1p1 / (p.tf + :k1 * (1 - :b + :b *"
        " p.dl / m.avgdl))) AS bm25 FROM sel JOIN chunk_terms p ON p.term = sel.term"
        " CROSS JOIN m GROUP BY p.chunk_id"
    )
    # Filtered: chunks are read best score first until `limit` pass the filter,
    # not once per posting (thousands of random heap reads in a large index).
    top = (
        f"SELECT s.chunk_id, s.bm25 FROM ({scores} ORDER BY bm25 DESC, p.chunk_id) s"
        f" JOIN chunks c ON c.id = s.chunk_id {where} ORDER BY s.bm25 DESC, s.chunk_id"
        " LIMIT :n"
        if where
        else f"{scores} ORDER BY bm25 DESC, p.chunk_id LIMIT :n"
    )
    row = (
        await session.execute(
            text(
                "WITH m AS (SELECT chunk_count AS n, token_total, embedding_model,"
                " greatest(1.0, token_total::float8 / greatest(1, chunk_count)) AS avgdl"
                # one row by its key: a 1-row estimate however stale its statistics
                " FROM index_meta WHERE id = 1),"
                " d AS (SELECT t.term, t.df FROM keyword_terms t WHERE t.term = ANY(:terms)),"
                # float8 throughout (numeric would be slower per posting, and differ
                # from Python's math.log in the last bits)
                " q AS (SELECT d.term, ln(1 + (m.n - d.df + 0.5::float8) / (d.df + 0.5::float8))"
                " AS idf,"
                " sum(d.df) OVER w AS upto, row_number() OVER w AS k FROM d CROSS JOIN m"
                " WHERE d.term = ANY(:ranked) AND d.df > 0"
                " WINDOW w AS (ORDER BY d.df, d.term ROWS UNBOUNDED PRECEDING)),"
                " sel AS (SELECT term, idf FROM q WHERE upto <= :max_postings OR k = 1),"
                f" top AS ({top})"
                " SELECT m.n, m.token_total, m.embedding_model,"
                " (SELECT coalesce(array_agg(term ORDER BY term), '{}') FROM d),"
                " (SELECT coalesce(array_agg(df ORDER BY term), '{}') FROM d),"
                " (SELECT coalesce(array_agg(chunk_id ORDER BY bm25 DESC, chunk_id), '{}')"
                " FROM top),"
                " (SELECT coalesce(array_agg(bm25 ORDER BY bm25 DESC, chunk_id), '{}') FROM top)"
                " FROM m"
            ),
            {
                "terms": terms,
                "ranked": ranked,
                "max_postings": MAX_KEYWORD_POSTINGS,
                "k1": K1,
                "k1p1": K1 + 1,
                "b": B,
                "n": limit,
                **params,
            },
        )
    ).one()
    stats = IndexStats(
        int(row[0]), int(row[1]), row[2], dict(zip(row[3], map(int, row[4]), strict=True))
    )
    return stats, [(int(c), finite(s)) for c, s in zip(row[5], row[6], strict=True)]


async def chunk_details(
    session: AsyncSession,
    ids: list[int],
    vec: str,
    query: QueryTerms,
    cosine_sql: str,
    matched: dict[int, frozenset[str]] | None = None,
) -> dict[int, SearchHit]:
    """Each chunk of `ids` as a hit: text and place, cosine, keyword coverage, relevance;
    into `matched`, the query's weighted terms each chunk holds."""
    if not ids:
        return {}
    weights = coverage_weights(query.idf)
    # vectors of another embedder (maybe another size) are not compared with this one's
    cosine = cosine_sql if query.vectors_usable else "0.0"
    terms = sorted(weights)
    total_idf = sum(weights.values()) or 1.0
    rows = await session.execute(
        text(
            "SELECT c.id, d.title, c.text, c.page, c.heading, c.language, d.url,"
            " c.entry_question,"
            f" {cosine},"
            " ARRAY(SELECT p.term FROM chunk_terms p WHERE p.chunk_id = c.id"
            " AND p.term = ANY(CAST(:terms AS text[])))"
            " FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ANY(:ids)"
        ),
        {"terms": terms, "vec": vec, "ids": ids},
    )
    hits: dict[int, SearchHit] = {}
    for cid, title, body, page, heading, lang, url, question, raw_cos, found in rows:
        held = frozenset(found)
        if matched is not None:
            matched[cid] = held
        coverage = sum(weights[t] for t in held) / total_idf
        cos = finite(raw_cos)
        hits[cid] = SearchHit(
            document=title,
            chunk_id=cid,
            text=body,
            score=relevance(cos, coverage, entry=question is not None),
            page=page,
            heading=heading,
            language=lang,
            url=url,
            question=question,
            cosine=round(cos, 4),
            coverage=round(coverage, 4),
        )
    return hits
