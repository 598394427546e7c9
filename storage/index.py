"""The vector index's identity: which embedder built it, and re-embedding everything."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import CursorResult, text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.db import Database
from storage.embeddings import Embedder, EmbeddingMismatchError, vector_literal
from storage.ingestion import index_text
from storage.repositories.documents import INDEX_WRITES, get_index_meta, lock_keys


async def check_embedder(db: Database, embedder: Embedder) -> None:
    """Fail clearly when the stored index was built by another embedder.

    An empty index adopts the configured embedder (resizing the column if its
    dimension differs), so a fresh install with an API embedder just works.
    """
    async with db.transaction() as session:
        meta = await get_index_meta(session)
        if meta.embedding_model == embedder.model_id and meta.embedding_dim == embedder.dim:
            return
        if meta.chunk_count == 0:  # as the swap: no ingest under way while it changes
            await lock_keys(session, [INDEX_WRITES])
            meta = await get_index_meta(session, lock=True)
        if meta.chunk_count == 0:
            if meta.embedding_dim != embedder.dim:
                await _resize_embedding_column(session, embedder.dim)
            meta.embedding_model = embedder.model_id
            meta.embedding_dim = embedder.dim
            return
        raise EmbeddingMismatchError(
            meta.embedding_model or "an unknown model",
            meta.embedding_dim,
            embedder.model_id,
            embedder.dim,
        )


async def reindex(
    db: Database,
    embedder: Embedder,
    batch_size: int = 64,
    progress: Callable[[int, int], None] | None = None,
) -> ReindexResult:
    """Re-embed every chunk with `embedder`, as ingestion embeds it (title, heading, body).

    Batches go to `reindex_vectors`, each in its own short transaction: searches
    keep using the old vectors meanwhile. The swap is one transaction at the
    end; chunks added during the run are embedded there. With the same
    dimension, readers are never blocked (row updates); a new dimension means
    a new column and index, and searches wait for that swap.
    """
    started = time.perf_counter()
    async with db.transaction() as session:
        # vectors left by an interrupted run of another embedder are useless
        await session.execute(
            text("DELETE FROM reindex_vectors WHERE embedder <> :m"), {"m": embedder.model_id}
        )
    async with db.sessions() as session:
        todo = await _unembedded(session, embedder.model_id)
    done = 0
    for start in range(0, len(todo), batch_size):
        await _stage(db, embedder, todo[start : start + batch_size])
        done += len(todo[start : start + batch_size])
        if progress:
            progress(done, len(todo))
    swap_started = time.perf_counter()
    async with db.transaction() as session:
        # ingests under way finish first (they hold INDEX_WRITES shared), new ones wait
        await lock_keys(session, [INDEX_WRITES])
        meta = await get_index_meta(session, lock=True)
        late = await _unembedded(session, embedder.model_id)
        if late:
            await _stage_in(session, embedder, late)
        if meta.embedding_dim != embedder.dim:
            await _resize_embedding_column(session, embedder.dim, keep_not_null=False)
        swapped = await session.execute(
            text(
                "UPDATE chunks c SET embedding = r.embedding,"
                " question_embedding = r.question_embedding"
                " FROM reindex_vectors r WHERE r.chunk_id = c.id"
            )
        )
        count = cast("CursorResult[Any]", swapped).rowcount
        await session.execute(text("ALTER TABLE chunks ALTER COLUMN embedding SET NOT NULL"))
        await session.execute(text("DELETE FROM reindex_vectors"))
        meta.embedding_model = embedder.model_id
        meta.embedding_dim = embedder.dim
    return ReindexResult(
        chunks=int(count),
        seconds=round(time.perf_counter() - started, 3),
        swap_seconds=round(time.perf_counter() - swap_started, 3),
    )


@dataclass(frozen=True)
class ReindexResult:
    """How many chunks were re-embedded, in how long, and how long the final swap took."""

    chunks: int
    seconds: float
    swap_seconds: float


Row = tuple[int, str, str | None, str, str | None]  # id, title, heading, body, entry question


async def _unembedded(session: AsyncSession, model_id: str) -> list[Row]:
    """Chunks without a staged vector of `model_id`, with what ingestion embeds of them."""
    rows = await session.execute(
        text(
            "SELECT c.id, d.title, c.heading, c.text, c.entry_question FROM chunks c"
            " JOIN documents d ON d.id = c.document_id"
            " WHERE NOT EXISTS (SELECT 1 FROM reindex_vectors r WHERE r.chunk_id = c.id"
            " AND r.embedder = :m) ORDER BY c.id"
        ),
        {"m": model_id},
    )
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


async def _stage(db: Database, embedder: Embedder, rows: list[Row]) -> None:
    """Embed one batch and keep its vectors (its own transaction: no lock on chunks)."""
    async with db.transaction() as session:
        await _stage_in(session, embedder, rows)


async def _stage_in(session: AsyncSession, embedder: Embedder, rows: list[Row]) -> None:
    texts = [index_text(title, heading, body) for _, title, heading, body, _ in rows]
    vectors = await asyncio.to_thread(embedder.model.embed_documents, texts)
    # an FAQ entry's chunks share its question: each one embedded once
    questions = list(dict.fromkeys(r[4] for r in rows if r[4]))
    asked = await asyncio.to_thread(embedder.model.embed_documents, questions) if questions else []
    by_question = dict(zip(questions, asked, strict=True))
    # ON CONFLICT: a chunk deleted meanwhile is simply gone (the foreign key cascades)
    await session.execute(
        text(
            "INSERT INTO reindex_vectors (chunk_id, embedder, embedding, question_embedding)"
            " SELECT :id, :m, CAST(:v AS vector), CAST(:q AS vector) WHERE EXISTS"
            " (SELECT 1 FROM chunks WHERE id = :id)"
            " ON CONFLICT (chunk_id) DO UPDATE SET embedder = :m, embedding = EXCLUDED.embedding,"
            " question_embedding = EXCLUDED.question_embedding"
        ),
        [
            {
                "id": r[0],
                "m": embedder.model_id,
                "v": vector_literal(v),
                "q": vector_literal(by_question[r[4]]) if r[4] else None,
            }
            for r, v in zip(rows, vectors, strict=True)
        ],
    )


async def _resize_embedding_column(
    session: AsyncSession, dim: int, keep_not_null: bool = True
) -> None:
    """Recreate the embedding columns (chunk, entry question) and their HNSW indexes at a
    new dimension."""
    for column in ("embedding", "question_embedding"):
        await session.execute(text(f"DROP INDEX IF EXISTS ix_chunks_{column}"))
        await session.execute(text(f"ALTER TABLE chunks DROP COLUMN {column}"))
        await session.execute(text(f"ALTER TABLE chunks ADD COLUMN {column} vector({int(dim)})"))
        await session.execute(text(f"ALTER TABLE chunks ALTER COLUMN {column} SET STORAGE PLAIN"))
        # FAQ chunks alone have a question vector: that index is partial (0013)
        partial = f" WHERE {column} IS NOT NULL" if column == "question_embedding" else ""
        await session.execute(
            text(
                f"CREATE INDEX ix_chunks_{column} ON chunks"
                f" USING hnsw ({column} vector_cosine_ops){partial}"
            )
        )
    if keep_not_null:
        await session.execute(text("ALTER TABLE chunks ALTER COLUMN embedding SET NOT NULL"))
