"""`/sources` in Telegram: an admin lists the synced sources and queues a sync of one; the
result arrives when the job is done; others are refused."""

from __future__ import annotations

import html
from pathlib import Path

from sqlalchemy import text

from bot.core.admin.audit import Actor
from tests.support.core_fixtures import jobs_running, not_due, until
from tests.support.fake_telegram import FakeTelegram, private_text
from tests.telegram.test_telegram import ADMIN, TelegramHarness, docs, fake_tg, tg

__all__ = ["docs", "fake_tg", "tg"]  # fixtures used here, defined with the adapter's tests
OPERATOR = Actor("cli", "operator", is_admin=True)


def said(fake: FakeTelegram, chat: int) -> list[str]:
    return [html.unescape(p["text"]) for p in fake.of("sendMessage", chat)]


async def test_an_admin_lists_sources_and_syncs_one_now(
    tg: list[TelegramHarness], fake_tg: FakeTelegram, tmp_path: Path
) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "dogs.txt").write_text("A dog licence costs 300 dollars a year.")
    sources = tg[0].worker.jobs.sources
    assert sources is not None
    await sources.add(
        OPERATOR, "folder", str(folder), name="kb", collection="public", every_s=86400
    )
    await not_due(tg[0].worker.db)
    await tg[0].post(private_text(9600, ADMIN, "/sources"))
    await until(lambda: any(t.startswith("• kb (folder, public)") for t in said(fake_tg, ADMIN)))
    [listed] = [t for t in said(fake_tg, ADMIN) if t.startswith("• kb")]
    assert "last sync never" in listed and "0 documents" in listed and "not synced yet" in listed

    async with jobs_running(tg[0].worker):
        await tg[1].post(private_text(9601, ADMIN, "/sources sync kb"))
        await until(lambda: any("A sync of 'kb' is queued" in t for t in said(fake_tg, ADMIN)))
        await until(lambda: any("The sync of 'kb' is done" in t for t in said(fake_tg, ADMIN)), 60)
    [done] = [t for t in said(fake_tg, ADMIN) if "The sync of 'kb' is done" in t]
    assert "1 added, 0 changed, 0 removed, 0 unchanged, 0 failed" in done

    await tg[0].post(private_text(9602, ADMIN, "/sources list"))
    await until(lambda: sum(t.startswith("• kb") for t in said(fake_tg, ADMIN)) == 2)
    [_, relisted] = [t for t in said(fake_tg, ADMIN) if t.startswith("• kb")]
    assert "1 documents — 1 added" in relisted and "last sync never" not in relisted

    await tg[0].post(private_text(9603, ADMIN, "/sources sync nowhere"))
    await until(lambda: any("no source named 'nowhere'" in t for t in said(fake_tg, ADMIN)))


async def test_a_citizen_is_refused_sources_and_nothing_is_queued(
    tg: list[TelegramHarness], fake_tg: FakeTelegram, tmp_path: Path
) -> None:
    sources = tg[0].worker.jobs.sources
    assert sources is not None
    await sources.add(OPERATOR, "folder", str(tmp_path), name="kb", collection="public", every_s=60)
    await not_due(tg[0].worker.db)
    citizen = 1201
    await tg[0].post(private_text(9650, citizen, "/sources"))
    await tg[0].post(private_text(9651, citizen, "/sources sync kb"))
    await until(lambda: len(said(fake_tg, citizen)) >= 2)
    assert all("only administrators" in t for t in said(fake_tg, citizen))
    [row] = await sources.list_sources(OPERATOR)
    assert row["last_sync"] is None
    async with tg[0].worker.db.sessions() as session:
        queued = await session.scalar(
            text("SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'sync_source'")
        )
    assert queued == 0
