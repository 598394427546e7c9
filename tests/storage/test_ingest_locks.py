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
from storage.embeddings import Embedder, EmbeddingMismatchError
from storage.index import ReindexResult, check_embedder, reindex
from storage.ingestion import ADDED, REPLACED, UNCHANGED, IngestionService, IngestResult
from storage.rechunk import rechunk
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


async def _any_waiting(db: Database) -> bool:
    return bool(await _waiting(db, ""))


def _pause_before_counting(monkeypatch: pytest.MonkeyPatch) -> tuple[asyncio.Event, asyncio.Event]:
    """Stop each add between its inserts and the statistics: the first event is set
    when one gets there, the second lets it go on."""
    inserted, go_on = asyncio.Event(), asyncio.Event()
    count_in = docs_repo._count_in

    async def paused(session: AsyncSession, chunks: int, tokens: int) -> None:
        inserted.set()
        await go_on.wait()
        await count_in(session, chunks, tokens)

    monkeypatch.setattr(docs_repo, "_count_in", paused)
    return inserted, go_on


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
    inserted, go_on = _pause_before_counting(monkeypatch)
    job = asyncio.create_task(
        ingestion.ingest_bytes("ferry.txt", b"The harbour ferry leaves every hour.")
    )
    swap: asyncio.Task[Any] | None = None
    try:
        await asyncio.wait_for(inserted.wait(), 10)
        swap = asyncio.create_task(reindex(db, embedder))
        # the ingest itself waits in Python, not in Postgres: a lock wait is the swap's
        await _until(lambda: _any_waiting(db), "the swap waiting for the ingest")
        assert not swap.done()
    finally:  # whatever happened above, neither task outlives the test
        go_on.set()
        done = await asyncio.wait_for(
            asyncio.gather(job, *([swap] if swap else []), return_exceptions=True), 30
        )
    failed = [d for d in done if isinstance(d, BaseException)]
    assert not failed, failed  # no deadlock error on either side
    ingested, swapped = done[0], done[1]
    assert isinstance(ingested, IngestResult) and isinstance(swapped, ReindexResult)
    assert ingested.status == ADDED
    assert swapped.chunks == 2  # the late document's chunk re-embedded too
    async with db.sessions() as s:
        assert (await s.execute(text("SELECT count(*) FROM chunks"))).scalar_one() == 2


async def test_an_empty_index_adopts_no_embedder_while_an_ingest_is_under_way(
    db: Database,
    ingestion: IngestionService,
    embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A server with another embedder starts while the index is still empty but an
    # ingest's chunks are about to land: it must see them and refuse, not relabel them.
    inserted, go_on = _pause_before_counting(monkeypatch)
    job = asyncio.create_task(
        ingestion.ingest_bytes("ferry.txt", b"The harbour ferry leaves every hour.")
    )
    other = Embedder(embedder.model, "other/model", embedder.dim)
    try:
        await asyncio.wait_for(inserted.wait(), 10)
        check = asyncio.create_task(check_embedder(db, other))
        await _until(lambda: _any_waiting(db), "the embedder check waiting for the ingest")
    finally:
        go_on.set()
    assert (await asyncio.wait_for(job, 10)).status == ADDED
    with pytest.raises(EmbeddingMismatchError):
        await asyncio.wait_for(check, 10)
    async with db.sessions() as s:
        stored = (await s.execute(text("SELECT embedding_model FROM index_meta"))).scalar_one()
    assert stored == embedder.model_id


async def test_a_replacement_racing_an_add_keeps_the_totals(
    db: Database, ingestion: IngestionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    await ingestion.ingest_bytes("ferry.txt", b"The harbour ferry leaves every hour.")
    paused, go_on = asyncio.Event(), asyncio.Event()
    find_same = docs_repo.find_same
    kept: list[object] = []  # the replacement keeps the statistics row it read first

    async def slow(session: AsyncSession, content_hash: str, title: str) -> Any:
        kept.append(await docs_repo.get_index_meta(session))
        found = await find_same(session, content_hash, title)
        if title == "ferry":
            paused.set()
            await go_on.wait()
        return found

    monkeypatch.setattr(docs_repo, "find_same", slow)
    replacing = asyncio.create_task(
        ingestion.ingest_bytes("ferry.txt", b"The harbour ferry now leaves every two hours.")
    )
    try:
        await asyncio.wait_for(paused.wait(), 10)
        added = await ingestion.ingest_bytes("hours.txt", b"The library opens at nine.")
    finally:
        go_on.set()
    assert added.status == ADDED
    assert (await asyncio.wait_for(replacing, 10)).status == REPLACED
    async with db.sessions() as s:
        counts = (
            await s.execute(
                text(
                    "SELECT m.chunk_count, (SELECT count(*) FROM chunks), m.token_total,"
                    " (SELECT sum(token_count) FROM chunks) FROM index_meta m"
                )
            )
        ).one()
    assert counts[0] == counts[1] == 2 and counts[2] == counts[3]


async def test_the_same_bytes_added_while_a_rechunk_swaps_them_are_unchanged(
    db: Database, ingestion: IngestionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = b"The harbour ferry leaves every hour. Tickets cost two dollars at the pier."
    assert (await ingestion.ingest_bytes("ferry.txt", body)).status == ADDED
    held, go_on = asyncio.Event(), asyncio.Event()
    delete_document = docs_repo.delete_document

    async def paused_delete(session: AsyncSession, document: Any) -> None:
        held.set()
        await go_on.wait()
        await delete_document(session, document)

    async def not_yet(session: AsyncSession, content_hash: str) -> None:
        return None  # the add's look outside its transaction came before the rechunk

    monkeypatch.setattr(docs_repo, "delete_document", paused_delete)
    job = asyncio.create_task(rechunk(db, ingestion, 300, 50))
    try:
        await asyncio.wait_for(held.wait(), 20)
        monkeypatch.setattr(docs_repo, "find_by_hash", not_yet)
        copy = asyncio.create_task(ingestion.ingest_bytes("ferry-copy.txt", body))
        await _until(lambda: _any_waiting(db), "the copy waiting for the rechunk")
    finally:
        go_on.set()
    await asyncio.wait_for(job, 20)
    assert (await asyncio.wait_for(copy, 20)).status == UNCHANGED


async def test_a_rechunk_stores_no_vectors_of_an_embedder_the_index_left(
    db: Database, ingestion: IngestionService, embedder: Embedder
) -> None:
    await ingestion.ingest_bytes("ferry.txt", b"The harbour ferry leaves every hour.")
    other = Embedder(embedder.model, "other/model", embedder.dim)  # same size, another model
    await reindex(db, other)  # another process re-embedded the index
    try:
        with pytest.raises(EmbeddingMismatchError, match="ragbot reindex"):
            await rechunk(db, ingestion, 300, 50)
    finally:
        await reindex(db, embedder)  # back, for the fixture teardown
