"""Documents ready together are stored together, on real Postgres: one transaction for
several, and still each one's outcome as if it had been written alone."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from storage import document_writer
from storage.chunking import Block, chunk_blocks
from storage.db import Database
from storage.document_writer import ADDED, REPLACED, UNCHANGED, DocumentWriter
from storage.ingestion import IngestionService
from storage.models import Document
from storage.repositories import documents as docs_repo
from storage.repositories.documents import NewChunk
from storage.upload_policy import DEFAULT_COLLECTION
from tests.storage.test_ingestion import _chunk_texts, _stats_consistent

FACTS = [
    "The harbour ferry leaves every hour from pier three.",
    "The library opens at nine and closes at six on weekdays.",
    "Bulky waste is collected on the first Monday of the month.",
    "A parking permit costs 1,200 dollars a year for residents.",
    "Dog licences are renewed every spring at the city office.",
    "The swimming pool is closed for cleaning every Tuesday morning.",
    "Recycling bins are emptied on Thursdays before eight.",
    "Birth certificates are issued at the household registration office.",
]


async def _ready(ingestion: IngestionService, title: str, body: str) -> tuple[Document, Any]:
    """A document and its embedded chunks, as ingestion hands them to the writer."""
    pieces = chunk_blocks([Block(body)], 300, 50)
    chunks: list[NewChunk] = await ingestion.embed_pieces(pieces, "en", title)
    document = Document(
        title=title,
        source=f"{title}.txt",
        format="txt",
        language="en",
        content_hash=hashlib.sha256(body.encode()).hexdigest(),
        size_bytes=len(body),
        chunk_count=len(chunks),
        collection=DEFAULT_COLLECTION,
    )
    return document, chunks


async def _titles(db: Database) -> list[str]:
    async with db.sessions() as s:
        return list((await s.scalars(text("SELECT title FROM documents ORDER BY title"))).all())


async def test_files_ingested_at_once_all_land(db: Database, ingestion: IngestionService) -> None:
    results = await asyncio.gather(
        *(ingestion.ingest_bytes(f"fact {n}.txt", fact.encode()) for n, fact in enumerate(FACTS))
    )
    assert [r.status for r in results] == [ADDED] * len(FACTS)
    assert await _titles(db) == sorted(f"fact {n}" for n in range(len(FACTS)))
    assert await _chunk_texts(db, "fact 3") == [FACTS[3]]
    assert await _stats_consistent(db)


async def test_documents_ready_together_share_transactions(
    db: Database, ingestion: IngestionService
) -> None:
    writer = DocumentWriter(db, ingestion.stale_embedder)
    ready = [await _ready(ingestion, f"fact {n}", fact) for n, fact in enumerate(FACTS)]
    written = await asyncio.gather(*(writer.write(*r) for r in ready))
    assert [w.status for w in written] == [ADDED] * len(FACTS)
    async with db.sessions() as s:
        # a transaction's documents share its start time (now()): fewer than one each
        started = (await s.execute(text("SELECT count(DISTINCT created_at) FROM documents"))).one()
    assert started[0] < len(FACTS)
    assert await _stats_consistent(db)


async def test_the_same_bytes_twice_at_once_are_stored_once(
    db: Database, ingestion: IngestionService
) -> None:
    body = FACTS[0].encode()
    results = await asyncio.gather(
        ingestion.ingest_bytes("ferry.txt", body), ingestion.ingest_bytes("boat.txt", body)
    )
    assert sorted(r.status for r in results) == [ADDED, UNCHANGED]
    assert len(await _titles(db)) == 1
    assert await _stats_consistent(db)


async def test_one_title_twice_at_once_is_added_then_replaced(
    db: Database, ingestion: IngestionService
) -> None:
    results = await asyncio.gather(
        ingestion.ingest_bytes("ferry.txt", FACTS[0].encode()),
        ingestion.ingest_bytes("ferry.txt", FACTS[1].encode()),
    )
    assert sorted(r.status for r in results) == [ADDED, REPLACED]
    kept = FACTS[0] if results[0].status == REPLACED else FACTS[1]
    assert await _chunk_texts(db, "ferry") == [kept]
    assert await _stats_consistent(db)


async def test_a_replacement_and_a_copy_of_what_it_replaces_both_land(
    db: Database, ingestion: IngestionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(document_writer, "BATCHES_AT_ONCE", 1)  # the last two: one batch
    writer = DocumentWriter(db, ingestion.stale_embedder)
    assert (await writer.write(*await _ready(ingestion, "ferry", FACTS[0]))).status == ADDED
    other = await _ready(ingestion, "library", FACTS[1])
    replacement = await _ready(ingestion, "ferry", FACTS[2])
    copy = await _ready(ingestion, "ferry copy", FACTS[0])  # the content being replaced
    written = await asyncio.gather(
        writer.write(*other), writer.write(*replacement), writer.write(*copy)
    )
    # one at a time, the copy would find the old ferry gone and be added: so here
    assert [w.status for w in written] == [ADDED, REPLACED, ADDED]
    assert await _chunk_texts(db, "ferry") == [FACTS[2]]
    assert await _chunk_texts(db, "ferry copy") == [FACTS[0]]
    assert await _stats_consistent(db)


async def test_one_documents_database_error_is_its_own(
    db: Database, ingestion: IngestionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(document_writer, "BATCHES_AT_ONCE", 1)
    insert = docs_repo.insert_document

    async def refusing(session: AsyncSession, document: Document, chunks: Any) -> None:
        if document.title == "bad":
            await session.execute(text("SELECT 1/0"))  # Postgres refuses this statement
        await insert(session, document, chunks)

    monkeypatch.setattr(docs_repo, "insert_document", refusing)
    writer = DocumentWriter(db, ingestion.stale_embedder)
    ready = [await _ready(ingestion, t, FACTS[n]) for n, t in enumerate(["a", "b", "bad", "c"])]
    written = await asyncio.gather(*(writer.write(*r) for r in ready), return_exceptions=True)
    assert [getattr(w, "status", None) for w in written] == [ADDED, ADDED, None, ADDED]
    assert "division by zero" in str(written[2])
    assert await _titles(db) == ["a", "b", "c"]
    assert await _stats_consistent(db)


async def test_a_document_whose_caller_went_away_before_its_turn_is_not_written(
    db: Database, ingestion: IngestionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(document_writer, "BATCHES_AT_ONCE", 1)
    counting, go_on = asyncio.Event(), asyncio.Event()
    count_in = docs_repo.count_in

    async def held(session: AsyncSession, counted: Any) -> None:
        counting.set()
        await go_on.wait()
        await count_in(session, counted)

    monkeypatch.setattr(docs_repo, "count_in", held)
    writer = DocumentWriter(db, ingestion.stale_embedder)
    first = asyncio.create_task(writer.write(*await _ready(ingestion, "ferry", FACTS[0])))
    await asyncio.wait_for(counting.wait(), 10)
    second = asyncio.create_task(writer.write(*await _ready(ingestion, "library", FACTS[1])))
    await asyncio.sleep(0.05)
    second.cancel()
    go_on.set()
    assert (await asyncio.wait_for(first, 10)).status == ADDED
    with pytest.raises(asyncio.CancelledError):
        await second
    await asyncio.sleep(0.2)  # a batch it wrongly stayed in would have run by now
    assert await _titles(db) == ["ferry"]
    assert await _stats_consistent(db)
