"""`sources` in Slack: an admin lists the synced sources and queues a sync of one (in a DM,
or `/ragbot sources`); the result is posted in the DM when the job is done."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from bot.core.admin.audit import Actor
from storage.db import Database
from tests.slack.test_slack import SlackHarness, fake_slack, slack
from tests.support.core_fixtures import jobs_running, not_due, until, until_settled
from tests.support.fake_slack import FakeSlack

__all__ = ["fake_slack", "slack"]  # fixtures used here, defined with the adapter's tests
OPERATOR = Actor("cli", "operator", is_admin=True)


def dm(text: str, ts: str, user: str = "U-ADMIN") -> dict[str, Any]:
    return {"type": "message", "channel_type": "im", "channel": "D7", "user": user, "text": text}


def posted(fake: FakeSlack) -> list[str]:
    calls = fake.of("chat.postMessage") + fake.of("chat.update")
    return [html.unescape(p.get("text") or "") for p in calls]


async def test_an_admin_syncs_a_source_from_a_dm_and_is_told_the_result(
    slack: list[SlackHarness], fake_slack: FakeSlack, tmp_path: Path
) -> None:
    (tmp_path / "bins.txt").write_text("Blue recycling crates go out on the first Monday.")
    sources = slack[0].worker.jobs.sources
    assert sources is not None
    await sources.add(OPERATOR, "folder", str(tmp_path), name="kb", collection="public", every_s=60)
    await not_due(slack[0].worker.db)
    async with jobs_running(slack[0].worker):
        await slack[0].event({**dm("sources sync kb", "900.1"), "ts": "900.1"})
        await until(lambda: any("A sync of 'kb' is queued" in t for t in posted(fake_slack)))
        await until(lambda: any("The sync of 'kb' is done" in t for t in posted(fake_slack)), 60)
    [notice] = [
        p
        for p in fake_slack.of("chat.postMessage")
        if html.unescape(p["text"]).startswith("The sync of 'kb' is done")
    ]
    assert notice["channel"] == "D7" and notice["thread_ts"] == "900.1"  # where it was asked
    assert "1 added" in html.unescape(notice["text"])
    await slack[1].event({**dm("sources", "900.2"), "ts": "900.2"})
    await until(lambda: any(t.startswith("• kb (folder, public)") for t in posted(fake_slack)))
    [listed] = [t for t in posted(fake_slack) if t.startswith("• kb")]
    assert "1 documents — 1 added" in listed


async def test_the_slash_command_lists_and_refuses_the_unknown_and_non_admins(
    slack: list[SlackHarness], fake_slack: FakeSlack, db: Database, tmp_path: Path
) -> None:
    sources = slack[0].worker.jobs.sources
    assert sources is not None
    await sources.add(OPERATOR, "folder", str(tmp_path), name="kb", collection="public", every_s=60)
    await not_due(slack[0].worker.db)

    async def command(text: str, user: str, respond: str) -> str:
        await slack[0].form(
            {
                "command": "/ragbot",
                "text": text,
                "user_id": user,
                "channel_id": "C1",
                "trigger_id": f"trig-{respond}",
                "team_id": "T1",
                "response_url": f"{fake_slack.root}respond/{respond}",
            }
        )
        await until(lambda: bool(fake_slack.of(f"respond/{respond}")))
        return html.unescape(fake_slack.of(f"respond/{respond}")[0]["text"])

    assert (await command("sources", "U-ADMIN", "a")).startswith("• kb (folder, public)")
    assert "no source named 'elsewhere'" in await command("sources sync elsewhere", "U-ADMIN", "b")
    assert "only administrators" in await command("sources sync kb", "U1", "c")
    await until_settled(db)
    [row] = await sources.list_sources(OPERATOR)
    assert row["last_sync"] is None
