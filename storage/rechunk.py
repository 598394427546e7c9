"""`ragbot reindex --rechunk`: rebuild every document's chunks, keyword statistics and vectors.

The original files are not kept, so a document's text is put back together from
its stored chunks (the sentences each chunk carried over from the one before
are dropped), then chunked again exactly as ingestion does now: FAQ entries
split out with their question as heading, title and heading in the indexed
text. Each document is swapped in its own transaction: a search sees either
its old chunks or its new ones, never neither.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select, text

from storage.chunking import Block, TextChunk, chunk_blocks, faq_blocks
from storage.db import Database
from storage.embeddings import EmbeddingMismatchError
from storage.ingestion import IngestionService
from storage.models import Document
from storage.repositories import documents as docs_repo
from textkit.sentences import split_sentences


@dataclass(frozen=True)
class RechunkResult:
    """What `rechunk` did."""

    documents: int
    chunks_before: int
    chunks_after: int
    seconds: float


def blocks_from_chunks(rows: list[tuple[str, int | None, str | None]]) -> list[Block]:
    """A document's blocks rebuilt from its chunks (text, page, heading) in position order.

    Consecutive chunks of one block share their overlap sentences: a chunk's
    leading sentences that end the previous chunk are dropped. Sentences go on
    lines of their own, so question lines ("Q: …?") are lines again.
    """
    blocks: list[tuple[int | None, str | None, list[str]]] = []
    for body, page, heading in rows:
        sentences = split_sentences(body)
        if blocks and blocks[-1][0] == page and blocks[-1][1] == heading:
            previous = blocks[-1][2]
            overlap = next(
                (
                    k
                    for k in range(min(len(previous), len(sentences)), 0, -1)
                    if previous[-k:] == sentences[:k]
                ),
                0,
            )
            previous.extend(sentences[overlap:])
        else:
            blocks.append((page, heading, sentences))
    return [Block("\n".join(s), page, heading) for page, heading, s in blocks]


async def rechunk(
    db: Database,
    ingestion: IngestionService,
    size: int,
    overlap: int,
    progress: Callable[[int, int], None] | None = None,
) -> RechunkResult:
    """Chunk every stored document again and re-index it (one transaction per document)."""
    started = time.perf_counter()
    async with db.sessions() as session:
        ids = list((await session.scalars(select(Document.id).order_by(Document.id))).all())
    before = after = 0
    for done, doc_id in enumerate(ids, 1):
        async with db.sessions() as session:
            doc = await session.get(Document, doc_id)
            rows = (
                await session.execute(
                    text(
                        "SELECT text, page, heading FROM chunks WHERE document_id = :id"
                        " ORDER BY position"
                    ),
                    {"id": doc_id},
                )
            ).all()
        if doc is None:  # deleted meanwhile
            continue
        blocks = blocks_from_chunks([(r[0], r[1], r[2]) for r in rows])
        pieces = await asyncio.to_thread(_chunk, blocks, size, overlap)
        chunks = await ingestion.embed_pieces(pieces, doc.language or "en", doc.title)
        async with db.transaction() as session:
            # as an ingest locks: its content and title, and the index in share mode (no
            # reindex swap until this commits, so the embedder checked next stays current)
            await docs_repo.lock_keys(
                session,
                [f"doc-hash:{doc.content_hash}", f"doc-title:{doc.title}"],
                shared=[docs_repo.INDEX_WRITES],
            )
            meta = await docs_repo.get_index_meta(session)
            # another process re-embedded meanwhile
            if ingestion.stale_embedder(meta.embedding_model) is not None:
                embedder = ingestion.embedder
                raise EmbeddingMismatchError(  # stale: the index names a model
                    str(meta.embedding_model), meta.embedding_dim, embedder.model_id, embedder.dim
                )
            current = await docs_repo.find_by_title(session, doc.title, lock=True)
            if current is None or current.content_hash != doc.content_hash:
                continue  # replaced or deleted while we worked: the new one is current
            fresh = Document(
                **{c: getattr(current, c) for c in _COPIED},
                chunk_count=len(chunks),
            )
            await docs_repo.delete_document(session, current)
            await session.flush()
            await docs_repo.add_document(session, fresh, chunks)
        before += len(rows)
        after += len(chunks)
        if progress:
            progress(done, len(ids))
    return RechunkResult(len(ids), before, after, time.perf_counter() - started)


def _chunk(blocks: list[Block], size: int, overlap: int) -> list[TextChunk]:
    return chunk_blocks(faq_blocks(blocks), size, overlap)


_COPIED = (
    "title",
    "source",
    "format",
    "language",
    "content_hash",
    "size_bytes",
    "page_count",
    "collection",
    "url",
    "origin",
    "created_at",
)
