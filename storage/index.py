"""The vector index's identity: which embedder built it, and re-embedding everything."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.db import Database
from storage.embeddings import Embedder, EmbeddingMismatchError
from storage.repositories.documents import get_index_meta


async def check_embedder(db: Database, embedder: Embedder) -> None:
    """Fail clearly when the stored index was built by another embedder.

    An empty index adopts the configured embedder (resizing the column if its
    dimension differs), so a fresh install with an API embedder just works.
    """
    async with db.transaction() as session:
        meta = await get_index_meta(session)
        if meta.embedding_model == embedder.model_id and meta.embedding_dim == embedder.dim:
            return
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
) -> int:
    """Re-embed every chunk with `embedder` in one transaction; returns the chunk count.

    Readers keep seeing the old index until the commit.
    """
    async with db.transaction() as session:
        meta = await get_index_meta(session)
        rows = (await session.execute(text("SELECT id, text FROM chunks ORDER BY id"))).all()
        if meta.embedding_dim != embedder.dim:
            await _resize_embedding_column(session, embedder.dim, keep_not_null=False)
        done = 0
        for start in range(0, len(rows), batch_size):
            batch = rows[start : start + batch_size]
            vectors = await asyncio.to_thread(embedder.model.embed_documents, [r[1] for r in batch])
            await session.execute(
                text("UPDATE chunks SET embedding = CAST(:v AS vector) WHERE id = :id"),
                [
                    {"id": r[0], "v": "[" + ",".join(f"{x:.7g}" for x in v) + "]"}
                    for r, v in zip(batch, vectors, strict=True)
                ],
            )
            done += len(batch)
            if progress:
                progress(done, len(rows))
        await session.execute(text("ALTER TABLE chunks ALTER COLUMN embedding SET NOT NULL"))
        meta.embedding_model = embedder.model_id
        meta.embedding_dim = embedder.dim
        return len(rows)


async def _resize_embedding_column(
    session: AsyncSession, dim: int, keep_not_null: bool = True
) -> None:
    """Recreate the embedding column and its HNSW index at a new dimension."""
    await session.execute(text("DROP INDEX IF EXISTS ix_chunks_embedding"))
    await session.execute(text("ALTER TABLE chunks DROP COLUMN embedding"))
    await session.execute(text(f"ALTER TABLE chunks ADD COLUMN embedding vector({int(dim)})"))
    await session.execute(text("ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE PLAIN"))
    if keep_not_null:
        await session.execute(text("ALTER TABLE chunks ALTER COLUMN embedding SET NOT NULL"))
    await session.execute(
        text("CREATE INDEX ix_chunks_embedding ON chunks USING hnsw (embedding vector_cosine_ops)")
    )
