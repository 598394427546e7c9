"""Ingestion's locks on real Postgres: writers queue only for the statistics, and a
reindex swap neither runs during an ingest nor deadlocks with one."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.db import Database
from storage.embeddings import Embedder
from storage.index import reindex
from storage.ingestion import ADDED, IngestionService
from storage.repositories import documents as docs_repo


async def _until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    for _ in range(200):
        if await check():
            return
        await asyncio.sleep(0.025)
    raise AssertionError(f"never saw: {what}")


async def _waiting(db: Database, query_part: str) -> list[int]:
    """Backends of this database waiting for a lock in a statement containing `query_part`."""
    async with db.sessions() as s:
        rows = await s.execute(
            text(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND position(:part IN query) > 0"
            ),
            {"part": query_part},
        )
        return [r[0] for r in rows]


async def test_an_ingest_writes_its_chunks_before_it_queues_for_the_statistics(
    db: Database, ingestion: IngestionService
) -> None:
    async with db.transaction() as holder:  # another writer, counting its terms
        await holder.execute(text("SELECT 1 FROM index_meta FOR UPDATE"))
        job = asyncio.create_task(
            ingestion.ingest_bytes("ferry.txt", b"The harbour ferry leaves every hour.")
        )
        waiting: list[int] = []

        async def parked() -> bool:
            waiting[:] = await _waiting(db, "index_meta")
            return bool(waiting)

        await _until(parked, "the ingest waiting for index_meta")
        async with db.sessions() as s:
            wrote = await s.execute(
                text(
                    "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                    " WHERE l.pid = :pid AND l.granted AND c.relname IN ('chunks', 'chunk_terms')"
                    " AND l.mode = 'RowExclusiveLock'"
                ),
                {"pid": waiting[0]},
            )
            assert wrote.scalar_one() == 2  # its rows are in, only the counts wait
        assert not job.done()
    result = await asyncio.wait_for(job, 10)
    assert result.status == ADDED and result.chunks == 1


async def test_a_reindex_swap_waits_for_an_ingest_under_way_and_embeds_its_chunks(
    db: Database,
    ingestion: IngestionService,
    embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await ingestion.ingest_bytes("hours.txt", b"The library opens at nine.")
    # The ingest stops between its inserts and the statistics: the moment a swap that
    # took index_meta first would wait for its chunks while it waits for index_meta.
    inserted, go_on = asyncio.Event(), asyncio.Event()
    take_statistics = docs_repo._count_in

    async def paused(session: AsyncSession, chunks: int, tokens: int) -> None:
        inserted.set()
        await go_on.wait()
        await take_statistics(session, chunks, tokens)

    monkeypatch.setattr(docs_repo, "_count_in", paused)
    job = asyncio.create_task(
        ingestion.ingest_bytes("ferry.txt", b"The harbour ferry leaves every hour.")
    )
    swap: asyncio.Task[Any] | None = None
    try:
        await asyncio.wait_for(inserted.wait(), 10)
        swap = asyncio.create_task(reindex(db, embedder))

        async def swap_waits() -> bool:
            return bool(await _waiting(db, "pg_advisory_xact_lock"))

        await _until(swap_waits, "the swap waiting for the ingest")
        assert not swap.done()
    finally:  # a failure above must not leave the ingest parked in its transaction
        go_on.set()
        if swap is None:
            await asyncio.wait_for(job, 10)
    assert (await asyncio.wait_for(job, 10)).status == ADDED
    result = await asyncio.wait_for(swap, 20)  # no deadlock error on either side
    assert result.chunks == 2  # the late document's chunk re-embedded too
    async with db.sessions() as s:
        assert (await s.execute(text("SELECT count(*) FROM chunks"))).scalar_one() == 2
