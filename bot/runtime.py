"""Builds the long-lived parts (database, embedder, services) from settings, once per process."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.settings import Settings
from storage import db as dbmod
from storage.db import Database, DatabaseUnavailableError
from storage.embeddings import Embedder, build_embedder
from storage.index import check_embedder
from storage.ingestion import IngestionService, IngestOptions
from storage.search import HybridSearcher

if TYPE_CHECKING:
    from bot.service import AnswerService

logger = logging.getLogger(__name__)


@dataclass
class Runtime:
    """Everything a command or adapter needs, handed in rather than imported."""

    settings: Settings
    db: Database
    embedder: Embedder
    ingestion: IngestionService
    searcher: HybridSearcher
    url: str
    server: Any = None  # the embedded Postgres handle, kept alive while we run

    def answer_service(self) -> AnswerService:
        """The turn service over this runtime's search, forms and (optional) LLM."""
        from bot.service import AnswerService
        from graph.context import GraphContext
        from graph.models import build_chat_model
        from graph.prompts import versions
        from storage.forms import FormFinder

        cfg = self.settings
        llm = build_chat_model(
            cfg.llm_base_url,
            cfg.llm_api_key,
            cfg.llm_model,
            cfg.llm_timeout_s,
            cfg.llm_max_retries,
        )
        context = GraphContext(
            searcher=self.searcher,
            forms=FormFinder(self.db),
            llm=llm,
            llm_timeout=cfg.llm_timeout_s,
            embedder=self.embedder.model,
            top_k=cfg.search_top_k,
            max_loops=cfg.max_retrieval_loops,
            prompt_versions=versions() if llm is not None else {},
        )
        return AnswerService(self.db, context, history_messages=cfg.history_messages)


def ingest_options(settings: Settings) -> IngestOptions:
    """Ingestion limits from settings."""
    return IngestOptions(
        max_bytes=settings.max_file_bytes,
        chunk_size=settings.chunk_size,
        chunk_overlap=settings.chunk_overlap,
        batch_size=settings.embedding_batch_size,
    )


def prepare_database(settings: Settings) -> tuple[str, Any]:
    """Resolve the URL (starting the embedded server if needed) and apply migrations."""
    url, server = dbmod.resolve_database_url(settings.database_url, settings.data_dir)
    try:
        dbmod.upgrade(url, embedding_dim=settings.embedding_dim or 512)
    except Exception as exc:
        if "connect" in str(exc).lower() or "connection" in type(exc).__name__.lower():
            raise DatabaseUnavailableError(_redacted(url, exc)) from exc
        raise
    return url, server


def _redacted(url: str, exc: Exception) -> str:
    from sqlalchemy.engine import make_url

    safe = make_url(url).render_as_string(hide_password=True)
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"cannot reach the database at {safe}: {first_line}"


@asynccontextmanager
async def open_runtime(settings: Settings, check_index: bool = True) -> AsyncIterator[Runtime]:
    """Start what the process needs; dispose of it on the way out."""
    url, server = await asyncio.to_thread(prepare_database, settings)
    embedder = await asyncio.to_thread(
        build_embedder,
        settings.embedding_base_url,
        settings.embedding_api_key,
        settings.embedding_model,
        settings.embedding_dim,
    )
    db = Database.connect(url)
    try:
        if check_index:
            await check_embedder(db, embedder)
        yield Runtime(
            settings=settings,
            db=db,
            embedder=embedder,
            ingestion=IngestionService(db, embedder, ingest_options(settings)),
            searcher=HybridSearcher(
                db,
                embedder,
                candidates=settings.search_candidates,
                keyword_weight=settings.search_keyword_weight,
                vector_weight=settings.search_vector_weight,
                fusion=settings.search_fusion,
            ),
            url=url,
            server=server,
        )
    finally:
        await db.dispose()
