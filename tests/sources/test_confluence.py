"""A Confluence source read through the real client against the local fake: a page's
storage format as text, a 429 waited out or not, a next link off the site, a page that
fails, and a space that is not there."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from bot.core.admin.audit import Actor, AuditLog
from bot.core.admin.sources import Sources
from storage.db import Database
from storage.ingestion import IngestionService
from storage.repositories import documents as docs_repo
from storage.sources.confluence import ConfluenceLogin, ConfluenceReader, confluence_location
from storage.sources.confluence_text import storage_text
from storage.sources.sync import SourceSyncer, SyncReport
from storage.sources.web import WebLimits
from tests.support.local_confluence import API_TOKEN, USER, LocalConfluence

OPERATOR = Actor("cli", "operator", is_admin=True)
LOGIN = ConfluenceLogin(USER, API_TOKEN)
FAST = WebLimits(requests_per_second=1000)
ROOMS = "<p>Meeting rooms on the third floor are booked through the front desk.</p>"
PARKING = "<p>Staff parking permits cost 40 dollars a month from the facilities office.</p>"


@pytest.fixture
def wiki() -> Iterator[LocalConfluence]:
    served = LocalConfluence("OPS", page_size=1)
    served.page("7", "Meeting rooms", ROOMS)
    served.page("8", "Parking", PARKING)
    served.start()
    yield served
    served.stop()


async def _synced_once(
    db: Database, ingestion: IngestionService, wiki: LocalConfluence, limits: WebLimits = FAST
) -> tuple[Sources, SyncReport]:
    syncer = SourceSyncer(db, ingestion, limits, LOGIN)
    # `internal` is read (SLACK_COLLECTIONS' default), as the runtime hands it over
    sources = Sources(db, AuditLog(db), syncer, readable=("internal",))
    await sources.add(
        OPERATOR, "confluence", wiki.base, space="OPS", name="ops", collection="internal",
        every_s=86400,
    )  # fmt: skip
    ((_, report),) = await sources.sync(OPERATOR, "ops")
    return sources, report


async def _titles(db: Database) -> set[str]:
    async with db.sessions() as session:
        return {d.title for d in await docs_repo.list_documents(session)}


def test_storage_format_keeps_headings_lists_and_tables_and_drops_macros() -> None:
    storage = (
        '<ac:structured-macro ac:name="toc"><ac:parameter ac:name="maxLevel">2'
        "</ac:parameter></ac:structured-macro>"
        "<h2>Booking</h2><p>Book <em>two days</em> ahead.<br/>Ask"
        ' <ac:link><ri:user ri:account-id="42"/><ac:plain-text-link-body><![CDATA[the desk]]>'
        "</ac:plain-text-link-body></ac:link>.</p>"
        "<ol><li>Pick a room<ul><li>third floor</li></ul></li><li>Confirm</li></ol>"
        "<table><tbody><tr><th>Room</th><th>Seats</th></tr><tr><td>Oak</td><td>8</td></tr>"
        "</tbody></table>"
        '<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash'
        "</ac:parameter><ac:plain-text-body><![CDATA[book --room oak]]></ac:plain-text-body>"
        '</ac:structured-macro><ac:image><ri:attachment ri:filename="plan.png"/></ac:image>'
    )
    assert storage_text(storage) == (
        "## Booking\n\nBook two days ahead.\n\nAsk the desk.\n\n"
        "1. Pick a room\n  - third floor\n2. Confirm\n\n"
        "| Room | Seats |\n| --- | --- |\n| Oak | 8 |\n\n"
        "```\nbook --room oak\n```"
    )
    assert storage_text('<ac:structured-macro ac:name="children"/>') == ""


async def test_a_429_is_waited_out_when_its_retry_after_is_short(
    db: Database, ingestion: IngestionService, wiki: LocalConfluence
) -> None:
    wiki.throttle = ["1"]
    started = time.monotonic()
    sources, report = await _synced_once(db, ingestion, wiki)
    assert report.status == "ok" and len(report.added) == 2
    assert time.monotonic() - started >= 1.0  # the Retry-After kept
    assert wiki.statuses()[429] == 1

    wiki.throttle = ["3600"]  # longer than a sync waits: it fails, the documents stay
    ((_, refused),) = await sources.sync(OPERATOR, "ops")
    assert refused.status == "failed" and "HTTP 429" in (refused.error or "")
    assert await _titles(db) == {"Meeting rooms", "Parking"}


async def test_a_next_link_off_the_site_is_never_followed(
    db: Database, ingestion: IngestionService, wiki: LocalConfluence
) -> None:
    sources, first = await _synced_once(db, ingestion, wiki)
    assert first.status == "ok"
    wiki.next_link = "http://169.254.169.254/rest/api/content?start=1"
    for _ in range(2):  # a listing cut short never counts the rest missing
        ((_, report),) = await sources.sync(OPERATOR, "ops")
        assert report.status == "failed" and "not the site's host" in (report.error or "")
    assert await _titles(db) == {"Meeting rooms", "Parking"}


async def test_a_page_that_fails_keeps_its_document_and_a_missing_space_fails(
    db: Database, ingestion: IngestionService, wiki: LocalConfluence
) -> None:
    sources, _ = await _synced_once(db, ingestion, wiki)
    wiki.page("8", "Parking", PARKING.replace("40", "45"))
    wiki.broken.add("8")
    ((_, report),) = await sources.sync(OPERATOR, "ops")
    assert report.status == "partial" and report.unchanged == 1
    assert report.failed[0]["item"].endswith("pageId=8")
    assert "HTTP 500" in report.failed[0]["reason"]
    assert await _titles(db) == {"Meeting rooms", "Parking"}

    other = LocalConfluence("OPS")
    other.start()
    try:
        await sources.add(
            OPERATOR, "confluence", other.base, space="NOPE", name="nope", collection="internal",
            every_s=86400,
        )  # fmt: skip
        ((_, missing),) = await sources.sync(OPERATOR, "nope")
    finally:
        other.stop()
    assert missing.status == "failed" and "no space 'NOPE'" in (missing.error or "")


def test_the_reader_keeps_a_pace_and_never_shows_the_secret(wiki: LocalConfluence) -> None:
    reader = ConfluenceReader(
        confluence_location(wiki.base, "OPS"), LOGIN, WebLimits(requests_per_second=10)
    )
    started = time.monotonic()
    pages = reader.space_pages(10)  # the space, then two listing pages: three requests
    assert [p.title for p in pages] == ["Meeting rooms", "Parking"]
    assert reader.requests == 3 and time.monotonic() - started >= 0.2
    reader.close()
    assert API_TOKEN not in repr(LOGIN)
