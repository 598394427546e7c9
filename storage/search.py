"""Hybrid retrieval: pgvector cosine top-N and BM25 over jieba tokens, fused.

The vector side looks up the nearest chunks and the nearest FAQ entry
questions (each chunk cut from an FAQ entry keeps its entry's question and its
vector): an entry's cosine is the mean of its chunk's and its question's, so a
citizen's paraphrase of the question finds the entry, and every chunk of a
long answer stays tied to it.

Three fusions. The default, "adaptive" (storage.ranking.adaptive_fusion),
weighs each side by how sure it is for this question: the keyword side by the
best keyword coverage among the candidates, the vector side by the best
cosine, so extractive questions whose rare terms all occur are led by BM25
and paraphrases or other-language questions by the meaning. "linear" (the
default before FAQ paraphrases were measured) adds the max-normalised BM25 to
`vector_weight` times the min-max cosine; "rrf" is weighted reciprocal-rank
fusion. Each result also carries `score`, a relevance estimate in [0, 1] that
thresholds use: 0.8 × the keyword coverage (the share of the question's IDF
mass that the passage contains) + 0.2 × the cosine similarity. The figures
behind these choices are in docs/benchmarks.md (`bench.retrieval`).
"""

from __future__ import annotations

import asyncio
import logging
import math

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.db import Database
from storage.embeddings import Embedder, vector_literal
from storage.ranking import (
    Evidence,
    adaptive_fusion,
    coverage_weights,
    linear_fusion,
    relevance,
    rrf,
)
from storage.search_types import (
    QueryTerms,
    SearchFilters,
    SearchHit,
    filter_sql,
    per_document_hits,
    set_leads,
)
from storage.support import set_supports, support_tokens
from textkit.question_words import asks_number
from textkit.tokens import keyword_tokens, stopwords

logger = logging.getLogger(__name__)


K1, B = 1.2, 0.75
# BM25 uses the rarest query terms whose postings add up to at most this many
# rows: very common terms ("的", "the") barely move a BM25 ranking but would
# make every query read a posting for nearly every chunk.
MAX_KEYWORD_POSTINGS = 6000
FUSIONS = ("adaptive", "linear", "rrf")
# The fused ranking picks the pool whose details are read; `score` orders the pool.
POOL_FACTOR = 4
MIN_POOL = 20
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


class HybridSearcher:
    """Runs hybrid searches against the chunks table."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        candidates: int = 40,
        keyword_weight: float = 1.0,
        vector_weight: float = 0.15,
        fusion: str = "adaptive",
        entry_questions: bool = True,
    ) -> None:
        if fusion not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}, not {fusion!r}")
        self.fusion = fusion
        # False: chunks alone, FAQ entry questions unused (a benchmark baseline)
        self._cosine = ENTRY_COSINE if entry_questions else CHUNK_COSINE
        self._db = db
        self._embedder = embedder
        self.candidates = candidates
        self.weights = {"keyword": keyword_weight, "vector": vector_weight}
        self._warned_stale = False
        # A search holds one connection and opens a second for the vector side. Were
        # every pooled connection held by a search waiting for its second, none would
        # ever come back: at most half the pool's connections go to searches.
        self._searching = asyncio.Semaphore(max(1, db.max_connections // 2))

    async def search(
        self,
        query: str,
        top_k: int = 5,
        threshold: float = 0.0,
        filters: SearchFilters | None = None,
        mode: str = "hybrid",
        per_document: int = 1,
        question: str | None = None,
    ) -> list[SearchHit]:
        """The best chunks with relevance ≥ `threshold`, ordered by `score`.

        At most `per_document` chunks of a document (its best ones; the ids of
        its other matching chunks are in `more`), `top_k` results in all.
        `mode` is "hybrid", or "keyword" / "vector" for one side alone (baselines).
        Each hit's `support` is measured against `question` (default: the
        query): a reworded retry query must not make a passage look like it
        answers what the user asked.
        """
        filters = filters or SearchFilters()
        asked = question or query
        # jieba is CPU work: off the event loop, like the embedding
        tokens, content = await asyncio.to_thread(
            lambda: (keyword_tokens(query), support_tokens(asked))
        )
        vector = await asyncio.to_thread(self._embedder.model.embed_query, query)
        vec_literal = vector_literal(vector)
        adaptive = self.fusion == "adaptive" and mode == "hybrid"
        async with self._searching, self._db.sessions() as session:
            terms = await self._idf(session, tokens, content)
            rankings: dict[str, list[tuple[int, float]]] = {}
            # The two sides run at once, the vector side on a second connection.
            vector_side = (
                asyncio.create_task(self._vector_in_own_session(vec_literal, filters))
                if mode in ("hybrid", "vector")
                else None
            )
            try:
                if mode in ("hybrid", "keyword"):
                    # the adaptive fusion ranks by content terms: in a small collection
                    # a question word ("when", "how") is rare enough to outweigh the topic
                    rankings["keyword"] = await self._keyword_ids(
                        session, terms, filters, content_only=adaptive
                    )
            finally:
                if vector_side is not None:
                    rankings["vector"] = await vector_side
            ranks = {
                name: {cid: r for r, (cid, _) in enumerate(ranked, 1)}
                for name, ranked in rankings.items()
            }
            if adaptive:
                # the fusion weighs coverage and cosine: every candidate's are read
                pool = list(dict.fromkeys(c for ranked in rankings.values() for c, _ in ranked))
                hits = await self._details(session, pool, vec_literal, terms)
                bm25 = dict(rankings.get("keyword", []))
                fused = adaptive_fusion(
                    {c: Evidence(bm25.get(c), h.coverage, h.cosine) for c, h in hits.items()}
                )
                pool = sorted(hits, key=lambda c: -fused[c])
            else:
                fuse = rrf if self.fusion == "rrf" else linear_fusion
                fused = fuse(rankings, self.weights)
                order = sorted(fused, key=lambda i: -fused[i])
                pool = order[: max(POOL_FACTOR * top_k, MIN_POOL)]
                hits = await self._details(session, pool, vec_literal, terms)
        for chunk_id, hit in hits.items():
            hit.fusion = round(fused[chunk_id], 6)
            hit.ranks = {name: r.get(chunk_id) for name, r in ranks.items()}
        set_leads(list(hits.values()))  # over the whole pool, before the threshold
        passing = [hits[c] for c in pool if c in hits and hits[c].score >= threshold]
        # the adaptive fusion and a one-sided baseline keep their own order
        by_score = mode == "hybrid" and not adaptive
        out = per_document_hits(passing, top_k, per_document, by_score=by_score)
        # jieba over each passage's sentences is CPU work: off the event loop
        await asyncio.to_thread(set_supports, out, terms.support, asks_number(asked))
        return out

    async def _idf(
        self, session: AsyncSession, tokens: list[str], support_tokens: list[str]
    ) -> QueryTerms:
        """IDF and document frequency of each distinct query token, and the mean chunk length.

        `support_tokens` (the query without question words, cut again) are looked
        up in the same statement, for `support`.
        """
        terms = sorted(set(tokens) | set(support_tokens))
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
        n = int(row[0])
        dfs = dict(zip(row[1], row[2], strict=True))
        idf = {
            t: (math.log(1 + (n - dfs.get(t, 0) + 0.5) / (dfs.get(t, 0) + 0.5)), dfs.get(t, 0))
            for t in terms
        }
        usable = self._vectors_usable(row[4])
        query_idf = {t: idf[t] for t in set(tokens)}
        support = coverage_weights({t: idf[t] for t in set(support_tokens)})
        return QueryTerms(query_idf, max(1.0, int(row[3]) / max(1, n)), usable, support)

    def _vectors_usable(self, stored_model: str | None) -> bool:
        """False once another process re-embedded the index with another embedder.

        Checked on every search (the row is read anyway): this process then
        searches by keywords alone and says once what to do, instead of
        comparing vectors of two different models.
        """
        usable = stored_model in (None, self._embedder.model_id)
        if not usable and not self._warned_stale:
            self._warned_stale = True
            logger.warning(
                "the knowledge base was re-embedded with %s but this process embeds with %s:"
                " searching by keywords only; restart with the matching EMBEDDING_* settings",
                stored_model,
                self._embedder.model_id,
            )
        return usable

    async def _vector_in_own_session(
        self, vec: str, filters: SearchFilters
    ) -> list[tuple[int, float]]:
        async with self._db.sessions() as session:
            stored = await session.execute(text("SELECT embedding_model FROM index_meta"))
            if not self._vectors_usable(stored.scalar_one_or_none()):
                return []
            return await self._vector_ids(session, vec, filters)

    async def _vector_ids(
        self, session: AsyncSession, vec: str, filters: SearchFilters
    ) -> list[tuple[int, float]]:
        where, params = filter_sql(filters)
        # the question half reads FAQ chunks only (a plan without the index would
        # otherwise pad it with chunks that have no question)
        entries = f"{where} AND" if where else "WHERE"
        if self.candidates > 40:  # pgvector's default ef_search is 40
            await session.execute(text(f"SET LOCAL hnsw.ef_search = {int(self.candidates)}"))
        if where:
            await session.execute(text("SET LOCAL hnsw.iterative_scan = relaxed_order"))
        # The nearest chunks and the nearest FAQ entry questions (each through its own
        # HNSW index), ranked by the chunk's cosine: an entry's is the mean of its
        # chunk's and its question's, so a paraphrase of the question finds the entry.
        questions = (
            f" UNION (SELECT c.id FROM chunks c {entries} c.question_embedding IS NOT NULL"
            " ORDER BY c.question_embedding <=> CAST(:vec AS vector) LIMIT :n)"
            if self._cosine == ENTRY_COSINE
            else ""
        )
        rows = await session.execute(
            text(
                f"SELECT c.id, {self._cosine} FROM chunks c WHERE c.id IN ("
                f"(SELECT c.id FROM chunks c {where}"
                f" ORDER BY c.embedding <=> CAST(:vec AS vector) LIMIT :n){questions})"
                " ORDER BY 2 DESC, c.id LIMIT :n"
            ),
            {"vec": vec, "n": self.candidates, **params},
        )
        return [(r[0], finite(r[1])) for r in rows]

    async def _keyword_ids(
        self,
        session: AsyncSession,
        terms: QueryTerms,
        filters: SearchFilters,
        content_only: bool = False,
    ) -> list[tuple[int, float]]:
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
        avgdl = terms.avgdl
        join = f"JOIN chunks c ON c.id = p.chunk_id {where}" if where else ""
        # BM25 straight from the postings of the selective terms (an index-only
        # scan of at most MAX_KEYWORD_POSTINGS rows); common terms, left out,
        # carry almost no IDF weight.
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
                "avgdl": avgdl,
                "n": self.candidates,
                **params,
            },
        )
        return [(r[0], finite(r[1])) for r in rows]

    async def _details(
        self,
        session: AsyncSession,
        ids: list[int],
        vec: str,
        query: QueryTerms,
    ) -> dict[int, SearchHit]:
        if not ids:
            return {}
        weights = coverage_weights(query.idf)
        # vectors of another embedder (maybe another size) are not compared with this one's
        cosine = self._cosine if query.vectors_usable else "0.0"
        terms = sorted(weights)
        total_idf = sum(weights.values()) or 1.0
        rows = await session.execute(
            text(
                "SELECT c.id, d.title, c.text, c.page, c.heading, c.language, d.url,"
                " c.entry_question,"
                f" {cosine},"
                " (SELECT coalesce(sum(q.idf), 0) FROM unnest(CAST(:terms AS text[]),"
                " CAST(:idfs AS float8[])) AS q(term, idf) JOIN chunk_terms p ON p.term ="
                " q.term AND p.chunk_id = c.id)"
                " FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ANY(:ids)"
            ),
            {"terms": terms, "idfs": [weights[t] for t in terms], "vec": vec, "ids": ids},
        )
        hits: dict[int, SearchHit] = {}
        for cid, title, body, page, heading, lang, url, question, raw_cos, matched in rows:
            coverage = float(matched) / total_idf
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
