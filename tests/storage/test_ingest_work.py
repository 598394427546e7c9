"""Ingestion's CPU work in worker processes: lower priority, batched embeddings, failures."""

from __future__ import annotations

import asyncio
import gc
import os
import signal

import pytest
from langchain_core.embeddings import Embeddings
from sqlalchemy import text

from storage.db import Database
from storage.embeddings import Embedder
from storage.ingest_work import IngestWork, IngestWorkerError
from storage.ingestion import ADDED, FAILED, IngestionService, IngestOptions, index_text
from storage.search import HybridSearcher

PASSPORT = b"An adult passport renewal costs 1,300 dollars and takes four working days."


class CountingEmbeddings(Embeddings):
    """A model that says how many calls it got; a text's vector is its length."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return [[float(len(t)), 1.0] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


async def test_the_work_runs_in_another_process_below_the_server() -> None:
    work = IngestWork(Embedder(CountingEmbeddings(), "counting", 2), processes=1, nice=7)
    try:
        assert await work.run(os.getpid) != os.getpid()
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert await work.run(os.getpriority, os.PRIO_PROCESS, 0) == min(19, mine + 7)
    finally:
        await work.close()


async def test_documents_ingested_together_share_embedding_calls() -> None:
    model = CountingEmbeddings()
    work = IngestWork(Embedder(model, "counting", 2), processes=0, batch_size=32)
    texts = [[f"doc {n} " + "x" * n, f"doc {n} again"] for n in range(10)]
    results = await asyncio.gather(*(work.embed(t) for t in texts))
    # ten documents of two texts: one call (batch of 20), not ten
    assert model.calls == [20]
    for asked, (vectors, tokens) in zip(texts, results, strict=True):
        assert [v[0] for v in vectors] == [float(len(t)) for t in asked]  # each its own
        assert tokens[0][:2] == ["doc", asked[0].split()[1]]
    await work.close()


async def test_a_killed_worker_fails_that_call_and_the_next_one_works() -> None:
    work = IngestWork(Embedder(CountingEmbeddings(), "counting", 2), processes=1)
    try:
        child = await work.run(os.getpid)
        with pytest.raises(IngestWorkerError, match="worker process stopped"):
            await work.run(os.kill, child, signal.SIGKILL)
        assert await work.run(os.getpid) != child  # a fresh process
    finally:
        await work.close()


class FailingOnce(IngestWork):
    """Work whose first call finds its worker process gone (as after an OOM kill)."""

    failed = False

    async def run(self, fn, *args):  # type: ignore[no-untyped-def]
        if not self.failed:
            self.failed = True
            raise IngestWorkerError("an ingestion worker process stopped (out of memory or killed)")
        return await super().run(fn, *args)


async def test_a_file_whose_worker_died_fails_cleanly_and_is_ingested_next_time(
    db: Database, embedder: Embedder
) -> None:
    service = IngestionService(db, embedder, IngestOptions(), FailingOnce(embedder))
    failed = await service.ingest_bytes("passport.txt", PASSPORT)
    assert failed.status == FAILED and "try again" in (failed.reason or "")
    async with db.sessions() as s:
        assert (await s.execute(text("SELECT count(*) FROM documents"))).scalar_one() == 0
    assert (await service.ingest_bytes("passport.txt", PASSPORT)).status == ADDED


async def test_a_process_embeds_exactly_as_this_process_does(
    db: Database, embedder: Embedder
) -> None:
    work = IngestWork(embedder, processes=1)
    try:
        service = IngestionService(db, embedder, IngestOptions(), work)
        assert (await service.ingest_bytes("passport.txt", PASSPORT)).status == ADDED
        async with db.sessions() as s:
            stored = (await s.execute(text("SELECT embedding::text FROM chunks"))).scalar_one()
        here = embedder.model.embed_documents([index_text("passport", None, PASSPORT.decode())])[0]
        vector = [float(x) for x in stored.strip("[]").split(",")]
        assert max(abs(a - b) for a, b in zip(vector, here, strict=True)) < 1e-5
        hits = await HybridSearcher(db, embedder).search("passport renewal cost", top_k=1)
        assert hits and hits[0].document == "passport"
        # the loaded model and dictionary sit out of the worker's full GC passes
        assert await work.run(gc.get_freeze_count) > 10_000
    finally:
        await work.close()
