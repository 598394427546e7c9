"""`ragbot reindex` on real Postgres: what it embeds, readers during the run, other processes."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from sqlalchemy import text

from storage.db import Database
from storage.embeddings import Embedder
from storage.index import reindex
from storage.ingestion import FAILED, IngestionService, IngestOptions, index_text
from storage.search import HybridSearcher

DOC = "# Passport renewal\n\n## Fees\n\nAn adult renewal costs 1,300 dollars.\n"


class SlowEmbeddings(Embeddings):
    """Another model's vectors, slowly: a reindex that takes a while."""

    def __init__(self, inner: Embeddings, delay: float) -> None:
        self.inner, self.delay, self.seen = inner, delay, []  # type: ignore[var-annotated]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        time.sleep(self.delay)
        self.seen.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


async def _vectors(db: Database) -> dict[int, Any]:
    async with db.sessions() as s:
        rows = await s.execute(text("SELECT id, CAST(embedding AS text) FROM chunks"))
        return {r[0]: json.loads(r[1]) for r in rows}


async def test_reindex_embeds_title_heading_and_body_like_ingestion(
    db: Database, ingestion: IngestionService, embedder: Embedder
) -> None:
    await ingestion.ingest_bytes("passport.md", DOC.encode())
    before = await _vectors(db)
    recorder = SlowEmbeddings(embedder.model, 0.0)
    result = await reindex(db, Embedder(recorder, embedder.model_id, embedder.dim))
    assert result.chunks == len(before)
    assert recorder.seen == [
        index_text("passport", "Fees", "An adult renewal costs 1,300 dollars.")
    ]
    after = await _vectors(db)
    for chunk_id, vector in before.items():  # same model, same text: the same vectors
        assert max(abs(a - b) for a, b in zip(vector, after[chunk_id], strict=True)) < 1e-4


async def test_searches_go_on_during_a_reindex_and_only_the_swap_is_short(
    db: Database, ingestion: IngestionService, embedder: Embedder, searcher: HybridSearcher
) -> None:
    for n in range(12):
        body = (
            f"# Notice {n}\n\nThe passport office notice number {n} says renewals take {n} days.\n"
        )
        await ingestion.ingest_bytes(f"notice-{n}.md", body.encode())
    slow = Embedder(SlowEmbeddings(embedder.model, 0.4), embedder.model_id, embedder.dim)
    job = asyncio.create_task(reindex(db, slow, batch_size=2))  # 6 batches, 0.4 s each
    waits: list[float] = []
    while not job.done():
        started = time.perf_counter()
        hits = await searcher.search("passport notice renewals", top_k=3)
        waits.append(time.perf_counter() - started)
        assert hits  # the old vectors answer meanwhile
        await asyncio.sleep(0.05)
    result = await job
    assert result.seconds > 2.0 and result.swap_seconds < 1.0
    assert len(waits) >= 10 and max(waits) < 1.0


async def test_other_processes_notice_the_new_embedder(
    db: Database, ingestion: IngestionService, embedder: Embedder, searcher: HybridSearcher, caplog
) -> None:  # type: ignore[no-untyped-def]
    await ingestion.ingest_bytes("passport.md", DOC.encode())
    other = Embedder(DeterministicFakeEmbedding(size=16), "fake/16", 16)
    await reindex(db, other)
    # `searcher` and `ingestion` stand for a server started with the old settings
    with caplog.at_level(logging.WARNING):
        hits = await searcher.search("passport renewal fee", top_k=1)
        again = await searcher.search("passport renewal fee", top_k=1)
    assert hits[0].document == "passport" and again[0].document == "passport"  # by keywords
    assert caplog.text.count("re-embedded with fake/16") == 1  # said once, not per search
    late = await ingestion.ingest_bytes("late.md", b"# Late\n\nA late document.")
    assert late.status == FAILED and "restart it with the matching EMBEDDING_*" in (
        late.reason or ""
    )
    fresh = IngestionService(db, other, IngestOptions())
    assert (await fresh.ingest_bytes("late.md", b"# Late\n\nA late document.")).status == "added"
    assert (await reindex(db, embedder)).chunks == 2  # back, for the fixture teardown


async def test_reindex_to_another_dimension_re_embeds_faq_questions(
    db: Database, ingestion: IngestionService, embedder: Embedder
) -> None:
    faq = "Q: How do I renew my passport?\nA: Bring your old passport and a photo."
    await ingestion.ingest_bytes("faq.txt", faq.encode())
    other = Embedder(DeterministicFakeEmbedding(size=8), "fake/8", 8)
    assert (await reindex(db, other)).chunks == 1
    async with db.sessions() as s:
        question, vector = (
            await s.execute(
                text("SELECT entry_question, CAST(question_embedding AS text) FROM chunks")
            )
        ).one()
    assert question == "How do I renew my passport?"
    expected = other.model.embed_documents([question])[0]
    assert max(abs(a - b) for a, b in zip(json.loads(vector), expected, strict=True)) < 1e-4
    # the new embedder's searches match the question again
    hits = await HybridSearcher(db, other).search("How do I renew my passport?", top_k=1)
    assert hits[0].question == question
    # back to the session's embedder: the tables are emptied after the test, but the index's
    # model and dimension stay, and later tests in this process search with the real one
    assert (await reindex(db, embedder)).chunks == 1
