"""`/healthz` names the synced sources whose last sync failed, and stays 200 for them."""

from __future__ import annotations

from pathlib import Path

import httpx

from bot.core.admin.audit import Actor, AuditLog
from bot.core.admin.sources import Sources
from bot.core.delivery.http import build_app
from storage.db import Database, head_revision
from storage.ingestion import IngestionService
from storage.sources.sync import SourceSyncer
from storage.sources.web import WebLimits

OPERATOR = Actor("cli", "operator", is_admin=True)


async def test_a_failing_source_shows_in_healthz_without_making_it_unhealthy(
    db: Database, ingestion: IngestionService, tmp_path: Path
) -> None:
    sources = Sources(db, AuditLog(db), SourceSyncer(db, ingestion, WebLimits()))
    good, gone = tmp_path / "good", tmp_path / "gone"
    for folder in (good, gone):
        folder.mkdir()
        (folder / f"{folder.name}.txt").write_text(f"The {folder.name} office opens at nine.")
        await sources.add(
            OPERATOR, "folder", str(folder), name=folder.name, collection="public", every_s=3600
        )
    gone.joinpath("gone.txt").unlink()
    gone.rmdir()  # the share was unmounted: the source cannot be read
    app = build_app(db, head_revision())

    async def healthz() -> tuple[int, dict]:  # type: ignore[type-arg]
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://ragbot"
        ) as client:
            response = await client.get("/healthz")
        return response.status_code, response.json()

    status, body = await healthz()
    assert status == 200 and body["sources"] == {"total": 2, "failing": []}

    await sources.sync(OPERATOR)
    app = build_app(db, head_revision())  # a new app: figures not cached from before
    status, body = await healthz()
    assert status == 200 and body["status"] == "ok"
    [failing] = body["sources"]["failing"]
    assert body["sources"]["total"] == 2 and failing["name"] == "gone"
    assert failing["error"] == f"{gone}: no such folder" and failing["since"]
    since = failing["since"]

    await sources.sync(OPERATOR, "gone")  # still failing: since when is kept
    app = build_app(db, head_revision())
    assert (await healthz())[1]["sources"]["failing"][0]["since"] == since

    gone.mkdir()  # back: the next sync succeeds and it is no longer listed
    await sources.sync(OPERATOR, "gone")
    app = build_app(db, head_revision())
    assert (await healthz())[1]["sources"] == {"total": 2, "failing": []}
