"""Sources sync on their schedule from the job queue, by their stored next sync time."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import text

from bot.core.admin.audit import Actor, AuditLog
from bot.core.admin.jobs import JobQueue
from bot.core.admin.sources import Sources
from storage.db import Database
from storage.ingestion import IngestionService
from storage.repositories import documents as docs_repo
from storage.sources.sync import SourceSyncer
from storage.sources.web import WebLimits

OPERATOR = Actor("cli", "operator", is_admin=True)


def _queue(database_url: str, db: Database, ingestion: IngestionService) -> JobQueue:
    """The job queue as `ragbot serve` builds it: with the sources (a fresh one: a restart)."""
    syncer = SourceSyncer(db, ingestion, WebLimits(requests_per_second=1000))
    sources = Sources(db, AuditLog(db), syncer)
    return JobQueue(database_url, db, ingestion, sources=sources)


async def _titles(db: Database) -> set[str]:
    async with db.sessions() as session:
        return {d.title for d in await docs_repo.list_documents(session)}


async def test_due_sources_sync_from_the_queue_and_survive_a_restart(
    database_url: str, db: Database, ingestion: IngestionService, tmp_path: Path
) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "dogs.txt").write_text("A dog licence costs 300 dollars a year.")
    queue = _queue(database_url, db, ingestion)
    # the job runs every minute while a worker (`ragbot serve`, `ragbot worker`) runs
    assert [p.cron for p in queue.app.periodic_registry.periodic_tasks.values()].count(
        "* * * * *"
    ) == 1
    sources = queue._sources
    assert sources is not None
    await sources.add(OPERATOR, "folder", str(folder), name="kb", collection="public", every_s=3600)

    # a new source is due at once; then not before its schedule
    assert await queue.sync_due_sources(int(time.time())) == ["kb"]
    assert await _titles(db) == {"dogs"}
    assert await queue.sync_due_sources(int(time.time())) == []
    (rows,) = [r for r in await sources.list_sources(OPERATOR) if r["name"] == "kb"]
    assert rows["last_status"] == "ok" and rows["schedule"] == "1h"

    # an hour on, after a restart: the stored next sync time brings it back
    (folder / "parks.txt").write_text("The parks close at ten in the evening.")
    async with db.transaction() as session:
        await session.execute(text("UPDATE sources SET next_sync_at = now() - interval '1 s'"))
    restarted = _queue(database_url, db, ingestion)
    assert await restarted.sync_due_sources(int(time.time())) == ["kb"]
    assert await _titles(db) == {"dogs", "parks"}


async def test_a_queue_without_sources_schedules_no_sync(
    database_url: str, db: Database, ingestion: IngestionService
) -> None:
    queue = JobQueue(database_url, db, ingestion)
    assert "sync_due_sources" not in {
        name for name, _ in queue.app.periodic_registry.periodic_tasks
    }
    assert await queue.sync_due_sources(0) == []
