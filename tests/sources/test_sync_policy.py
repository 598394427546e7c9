"""A synced page is ingested as an upload into its collection is: screened for personal data."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.core.admin.audit import Actor, AuditLog
from bot.core.admin.sources import Sources
from storage.db import Database
from storage.ingestion import IngestionService, IngestOptions
from storage.repositories import documents as docs_repo
from storage.sources.sync import SourceSyncer
from storage.sources.web import WebLimits
from storage.upload_policy import UploadPolicy
from tests.support.local_site import LocalSite

OPERATOR = Actor("cli", "operator", is_admin=True)
FEES = "Renewing a passport costs 1,300 dollars at the immigration office counters."


@pytest.fixture
def site() -> Iterator[LocalSite]:
    served = LocalSite()
    served.page("/fees.html", "Passport fees", FEES)
    served.start()
    yield served
    served.stop()


async def test_personal_data_on_a_public_page_keeps_the_old_version(
    db: Database,
    embedder,
    site: LocalSite,  # type: ignore[no-untyped-def]
) -> None:
    # public is read by citizens: screened, as any upload into it
    ingestion = IngestionService(db, embedder, IngestOptions(policy=UploadPolicy()))
    assert ingestion.policy.screens("public")
    syncer = SourceSyncer(db, ingestion, WebLimits(requests_per_second=1000))
    sources = Sources(db, AuditLog(db), syncer)
    await sources.add(
        OPERATOR, "web", site.root + "/", name="gov", collection="public", every_s=86400
    )
    (first,) = await sources.sync(OPERATOR, "gov")
    assert first[1].added == [site.root + "/fees.html"]

    site.page("/fees.html", "Passport fees", FEES + " Questions: jane.doe@example.org")
    (held,) = await sources.sync(OPERATOR, "gov")
    report = held[1]
    assert report.status == "partial" and not report.changed
    assert report.failed[0]["item"] == site.root + "/fees.html"
    assert "personal data found" in report.failed[0]["reason"]
    async with db.sessions() as session:
        (doc,) = await docs_repo.list_documents(session)
    assert doc.title == "Passport fees" and doc.url == site.root + "/fees.html"
    async with db.sessions() as session:
        kept = await docs_repo.find_by_title(session, "Passport fees")
    assert kept is not None and kept.id == doc.id  # the earlier version, untouched
