"""The database from settings: its URL resolved (the embedded server started when none
is configured) and migrated, for the runtime and for commands that need nothing else."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy.engine import make_url

from bot.settings import Settings
from storage import db as dbmod
from storage.db import Database, DatabaseUnavailableError


def prepare_database(settings: Settings) -> tuple[str, Any]:
    """Resolve the URL (starting the embedded server if needed) and apply migrations:
    (the URL, the embedded server's handle or None)."""
    url, server = dbmod.resolve_database_url(
        settings.database_dsn, settings.data_dir, settings.embedded_pg_shared_buffers_mb
    )
    try:
        dbmod.upgrade(url, embedding_dim=settings.embedding_dim or 512)
    except Exception as exc:
        if "connect" in str(exc).lower() or "connection" in type(exc).__name__.lower():
            raise DatabaseUnavailableError(_redacted(url, exc)) from exc
        raise
    return url, server


def _redacted(url: str, exc: Exception) -> str:
    safe = make_url(url).render_as_string(hide_password=True)
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"cannot reach the database at {safe}: {first_line}"


@asynccontextmanager
async def open_database(settings: Settings) -> AsyncIterator[Database]:
    """The database alone (migrated), for commands that need no embedder or services."""
    url, _server = await asyncio.to_thread(prepare_database, settings)
    db = Database.connect(url, pool_size=2)
    try:
        yield db
    finally:
        await db.dispose()
