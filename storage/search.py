"""Hybrid retrieval: pgvector cosine top-N and BM25 over jieba tokens, fused.

The vector side looks up the nearest chunks and the nearest FAQ entry
questions (each chunk cut from an FAQ entry keeps its entry's question and its
vector): an entry's cosine is the mean of its chunk's and its question's, so a
citizen's paraphrase of the question finds the entry, and every chunk of a
long answer stays tied to it.

Three fusions. The default, "adaptive" (storage.ranking.adaptive_fusion),
weighs each side by how sure it is for this question: how far its best
candidate stands out from the next ones (the keyword side on coverage times
relative BM25, the vector side on the cosine, held to its lead over the
median), so extractive questions whose rare terms all occur are led by BM25
and paraphrases or other-language questions by the meaning. The SQL of each
side is in storage.search_sides. "linear" (the default before FAQ paraphrases
were measured) adds the max-normalised BM25 to `vector_weight` times the
min-max cosine; "rrf" is weighted reciprocal-rank
fusion. Each result also carries `score`, a relevance estimate in [0, 1] that
thresholds use: 0.8 × the keyword coverage (the share of the question's IDF
mass that the passage contains) + 0.2 × the cosine similarity. The figures
behind these choices are in docs/benchmarks.md (`bench.retrieval`).
"""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.ext.asyncio import AsyncSession

from storage.cpu_work import cpu_work
from storage.cross_language import mark_cross_language
from storage.db import Database
from storage.embeddings import Embedder, vector_literal
from storage.ranking import (
    Evidence,
    adaptive_fusion,
    coverage_weights,
    linear_fusion,
    rrf,
)
from storage.search_sides import (
    CHUNK_COSINE,
    ENTRY_COSINE,
    IndexStats,
    chunk_details,
    content_terms,
    index_stats,
    keyword_side,
    vector_ids,
)
from storage.search_types import (
    QueryTerms,
    SearchFilters,
    SearchHit,
    per_document_hits,
    set_leads,
)
from storage.support import credit_prices, set_supports, support_tokens
from textkit.answer_type import price_words
from textkit.cantonese import written_chinese
from textkit.question_words import asks_number
from textkit.tokens import keyword_tokens

logger = logging.getLogger(__name__)


FUSIONS = ("adaptive", "linear", "rrf")
# The fused ranking picks the pool whose details are read; `score` orders the pool.
POOL_FACTOR = 4
MIN_POOL = 20


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
        self._vectors_known_usable = True
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
        other_languages: bool = False,
    ) -> list[SearchHit]:
        """The best chunks with relevance ≥ `threshold`, ordered by `score`.

        At most `per_document` chunks of a document (its best ones; the ids of
        its other matching chunks are in `more`), `top_k` results in all.
        `mode` is "hybrid", or "keyword" / "vector" for one side alone (baselines).
        Each hit's `support` is measured against `question` (default: the
        query): a reworded retry query must not make a passage look like it
        answers what the user asked. With `other_languages`, passages in another
        language than the question (marked `cross_language`) pass whatever their
        `score`: it is mostly keyword coverage, and the caller judges them by meaning.
        They come after the `top_k` results in the question's language (up to `top_k`
        of their own), which are what they would be without them.
        """
        filters = filters or SearchFilters()
        # colloquial Cantonese searched as the written Chinese the documents use (the
        # question itself, shown and stored, stays as written)
        asked = written_chinese(question or query)
        query = written_chinese(query)
        # jieba and the embedding are CPU work: in a thread, or inline for the lane's
        # holder when the texts are short (storage.cpu_work)
        tokens, content, vector = await cpu_work(
            len(query) + len(asked),
            lambda: (
                keyword_tokens(query),
                support_tokens(asked),
                self._embedder.model.embed_query(query),
            ),
        )
        vec_literal = vector_literal(vector)
        adaptive = self.fusion == "adaptive" and mode == "hybrid"
        # Autocommit: each statement one round trip (no BEGIN, no ROLLBACK). The two
        # sides run at once, the vector side on a second connection; the keyword side
        # reads the statistics in the same statement as its ranking.
        async with self._searching, self._db.autocommit() as session:
            rankings: dict[str, list[tuple[int, float]]] = {}
            # not while the stored vectors are known to be another embedder's (each search
            # would run a query whose answer is thrown away)
            vector_side = (
                asyncio.create_task(self._vector_in_own_session(vec_literal, filters))
                if mode in ("hybrid", "vector") and self._vectors_known_usable
                else None
            )
            try:
                if mode in ("hybrid", "keyword"):
                    # the adaptive fusion ranks by content terms: in a small collection
                    # a question word ("when", "how") is rare enough to outweigh the topic
                    stats, rankings["keyword"] = await keyword_side(
                        session,
                        sorted(set(tokens) | set(content)),
                        content_terms(tokens) if adaptive else sorted(set(tokens)),
                        filters,
                        self.candidates,
                    )
                else:
                    stats = await index_stats(session, sorted(set(tokens) | set(content)))
                terms = self._terms(stats, tokens, content, asked)
            except BaseException:
                if vector_side is not None:  # cancelled, or the keyword side failed
                    vector_side.cancel()
                raise
            finally:
                # what the side raised is taken here, not left to be logged as never
                # retrieved
                settled = (
                    (await asyncio.gather(vector_side, return_exceptions=True))[0]
                    if vector_side is not None
                    else None
                )
            if mode in ("hybrid", "vector"):
                if vector_side is None or not terms.vectors_usable:
                    # another embedder's vectors (a re-embedded index): not compared, and
                    # what the side ran into (vectors of another size) is not this search's
                    rankings["vector"] = []
                elif isinstance(settled, BaseException):
                    raise settled
                else:
                    rankings["vector"] = settled or []
            ranks = {
                name: {cid: r for r, (cid, _) in enumerate(ranked, 1)}
                for name, ranked in rankings.items()
            }
            if adaptive:
                # the fusion weighs coverage and cosine: every candidate's are read
                pool = list(dict.fromkeys(c for ranked in rankings.values() for c, _ in ranked))
                hits = await self._details(session, pool, vec_literal, terms, asked)
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
                hits = await self._details(session, pool, vec_literal, terms, asked)
        # passages in another language: `other_languages` lets them past the threshold
        mark_cross_language(hits.values(), asked)
        for chunk_id, hit in hits.items():
            hit.fusion = round(fused[chunk_id], 6)
            hit.ranks = {name: r.get(chunk_id) for name, r in ranks.items()}
        set_leads(list(hits.values()))  # over the whole pool, before the threshold
        # a passage in another language shares no words with the question: the
        # threshold (mostly keyword coverage) cannot judge it; the answering step
        # judges it by meaning (graph.cross_language)
        passing = [
            hits[c]
            for c in pool
            if c in hits
            and (hits[c].score >= threshold or (other_languages and hits[c].cross_language))
        ]
        # the adaptive fusion and a one-sided baseline keep their own order
        by_score = mode == "hybrid" and not adaptive
        if other_languages:
            # the question's own language keeps its places; passages in another
            # language come after them, `top_k` of their own at most
            native = [h for h in passing if not h.cross_language]
            other = [h for h in passing if h.cross_language]
            out = per_document_hits(native, top_k, per_document, by_score=by_score)
            out += per_document_hits(other, top_k, per_document, by_score=by_score)
        else:
            out = per_document_hits(passing, top_k, per_document, by_score=by_score)
        # jieba over each passage's sentences is CPU work. Sized by the question: the
        # passages are at most top_k (≤ 20) chunks, most already cut (cached tokens)
        await cpu_work(
            len(asked), set_supports, out, terms.support, asks_number(asked), terms.price
        )
        return out

    async def _details(
        self, session: AsyncSession, pool: list[int], vec: str, terms: QueryTerms, asked: str
    ) -> dict[int, SearchHit]:
        """`chunk_details` of the pool; a price asked is held by a chunk giving one of what
        the question names (storage.support.credit_prices: CPU work, off the loop)."""
        matched: dict[int, frozenset[str]] = {}
        hits = await chunk_details(session, pool, vec, terms, self._cosine, matched)
        if terms.price:
            weights = coverage_weights(terms.idf)
            await cpu_work(
                len(asked), credit_prices, list(hits.values()), weights, matched, terms.price
            )
        return hits

    def _terms(
        self, stats: IndexStats, tokens: list[str], support_tokens: list[str], asked: str
    ) -> QueryTerms:
        """IDF and document frequency of each distinct query token, and the mean chunk
        length; the tokens naming the price `asked` asks (textkit.answer_type.price_words)."""
        usable = self._vectors_usable(stats.embedding_model)
        query_idf = {t: stats.idf(t) for t in set(tokens)}
        support = coverage_weights({t: stats.idf(t) for t in set(support_tokens)})
        price = price_words(asked, [*tokens, *support_tokens])
        return QueryTerms(query_idf, stats.avgdl, usable, support, price)

    def _vectors_usable(self, stored_model: str | None) -> bool:
        """False once another process re-embedded the index with another embedder.

        Checked on every search (the row is read anyway): this process then
        searches by keywords alone and says once what to do, instead of
        comparing vectors of two different models.
        """
        usable = stored_model in (None, self._embedder.model_id)
        self._vectors_known_usable = usable  # what the next search starts from
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
        async with self._db.autocommit() as session:
            return await vector_ids(
                session, vec, filters, self.candidates, self._cosine == ENTRY_COSINE
            )
