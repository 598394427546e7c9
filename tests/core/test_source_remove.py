"""Removing a source takes the lock its sync holds: never under a running sync."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from bot.core.admin.audit import Actor, AdminInputError, AuditLog
from bot.core.admin.sources import Sources
from storage.db import Database
from storage.ingestion import IngestionService
from storage.repositories import documents as docs_repo
from storage.sources.sync import SourceSyncer
from storage.sources.web import WebLimits

OPERATOR = Actor("cli", "operator", is_admin=True)


async def test_a_source_is_not_removed_while_it_syncs(
    db: Database, ingestion: IngestionService, tmp_path: Path
) -> None:
    (tmp_path / "dogs.txt").write_text("A dog licence costs 300 dollars a year.")
    sources = Sources(db, AuditLog(db), SourceSyncer(db, ingestion, WebLimits()))
    source = await sources.add(
        OPERATOR, "folder", str(tmp_path), name="kb", collection="public", every_s=3600
    )
    await sources.sync(OPERATOR, "kb")
    key = {"key": f"source-sync:{source.id}"}
    async with db.engine.connect() as syncing:  # a sync elsewhere holds its lock
        assert await syncing.scalar(
            text("SELECT pg_try_advisory_lock(hashtextextended(:key, 0))"), key
        )
        with pytest.raises(AdminInputError, match="is syncing now"):
            await sources.remove(OPERATOR, "kb")
        assert [s["name"] for s in await sources.list_sources(OPERATOR)] == ["kb"]
        await syncing.execute(text("SELECT pg_advisory_unlock(hashtextextended(:key, 0))"), key)
    assert await sources.remove(OPERATOR, "kb") == 1
    async with db.sessions() as session:
        assert await docs_repo.list_documents(session) == []
