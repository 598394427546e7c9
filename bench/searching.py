"""The searchers a retrieval benchmark compares, and building their index from passages."""

from __future__ import annotations

import asyncio
import re
import time

from sqlalchemy import text

from bench.common import connect, fresh_database
from bot.app.uploads import ingest_options, upload_policy
from bot.settings import Settings
from storage.db import Database
from storage.embeddings import Embedder, build_embedder
from storage.index import check_embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher

# method name → (fusion, search mode); "chunks": vectors of whole chunks only
METHODS = {
    "hybrid (adaptive fusion, default)": ("adaptive", "hybrid"),
    "hybrid (linear fusion, previous default)": ("linear", "hybrid"),
    "hybrid (weighted RRF)": ("rrf", "hybrid"),
    "keyword only (BM25 in Postgres)": ("linear", "keyword"),
    "vector only (pgvector HNSW)": ("linear", "vector"),
    "vector only, chunks alone (no entry questions)": ("chunks", "vector"),
}
HYBRID = "hybrid (adaptive fusion, default)"
CUTS = (1, 5, 10)


def configured_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name (EMBEDDING_*; the local one when none is set)."""
    key = settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else None
    return build_embedder(
        settings.embedding_base_url, key, settings.embedding_model, settings.embedding_dim
    )


async def corpus_database(
    prefix: str, name: str, passages: dict[str, str], settings: Settings
) -> Database:
    """A fresh database named after `prefix` and the corpus `name`, `passages` ingested
    (dispose of it when done)."""
    slug = prefix + re.sub(r"[^0-9A-Za-z]", "_", name)[:40]
    url, _server = await asyncio.to_thread(fresh_database, slug)
    db = connect(url)
    await ingest_corpus(db, passages, settings)
    return db


async def ingest_corpus(
    db: Database, passages: dict[str, str], settings: Settings
) -> dict[str, float]:
    embedder = configured_embedder(settings)
    await check_embedder(db, embedder)
    service = IngestionService(db, embedder, ingest_options(settings, upload_policy(settings)))
    start = time.perf_counter()
    chunks = 0
    for pid, body in passages.items():
        result = await service.ingest_bytes("passage.txt", body.encode(), title=pid)
        chunks += result.chunks
    seconds = time.perf_counter() - start
    await vacuum(db)
    return {"ingest_s": seconds, "chunks": chunks, "chunks_per_s": chunks / seconds}


def searchers(db: Database, settings: Settings) -> dict[str, tuple[HybridSearcher, str]]:
    """One searcher per benchmarked method."""
    embedder = configured_embedder(settings)
    return {
        name: (
            HybridSearcher(
                db,
                embedder,
                settings.search_candidates,
                settings.search_keyword_weight,
                settings.search_vector_weight if fusion == "linear" else 0.5,
                "linear" if fusion == "chunks" else fusion,
                entry_questions=fusion != "chunks",
            ),
            mode,
        )
        for name, (fusion, mode) in METHODS.items()
    }


async def vacuum(db: Database) -> None:
    """VACUUM ANALYZE as autovacuum eventually would (index-only scans need it)."""
    async with db.engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        for table in ("chunks", "chunk_terms", "keyword_terms"):
            await conn.execute(text(f"VACUUM ANALYZE {table}"))
