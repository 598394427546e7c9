"""Slack audiences: guests, Slack Connect users and the unidentified read only the guest
collections and are never admins; answers in shared (or unknown) channels read only the
guest collections whoever asks; channels can add collections; a missing users:read scope
is one clear error; DM questions that start with a command word stay questions. The real
bolt app against the fake Slack and Postgres."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient
from sqlalchemy import text

from bot import settings as bot_settings
from bot.settings import ConfigurationError
from bot.slack.app import SlackAdapter
from bot.slack.audience import SlackAudiences
from bot.slack.translate import dm_command
from storage.db import Database
from storage.embeddings import Embedder
from storage.forms import FormService
from storage.ingestion import IngestionService, IngestOptions
from storage.upload_policy import COLLECTION_NAME
from tests.slack.test_slack import (
    SECRET,
    SlackHarness,
    blocks_text,
    mention,
    serve_slack,
    stop_slack,
)
from tests.support.core_fixtures import DOCS, make_worker, settings_for_tests, until_settled
from tests.support.fake_slack import TOKEN, FakeSlack

PASSPORT_Q = "How much does an adult passport renewal cost?"
INTERNAL_FACT = "1,300"  # only in the internal passport document
PUBLIC_DOC = "# Office hours\n\nThe City Service Centre is open 8:30 to 17:30 on weekdays.\n"
HR_DOC = "# Salary bands\n\nThe grade 7 salary band runs from 52,000 to 61,000 dollars.\n"
BADGE_URL = "https://intranet.example.org/badge"
GUEST = {"team_id": "T1", "is_restricted": True, "is_ultra_restricted": False}
SINGLE_CHANNEL_GUEST = {"team_id": "T1", "is_restricted": True, "is_ultra_restricted": True}
OUTSIDER = {"team_id": "T2", "is_restricted": False, "is_ultra_restricted": False}


@pytest.fixture
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack().start()
    fake.users.update(
        {"UGUEST": GUEST, "UONE": SINGLE_CHANNEL_GUEST, "UEXT": OUTSIDER, "U-GUESTADMIN": GUEST}
    )
    yield fake
    fake.stop()


@pytest.fixture
async def slack(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> AsyncIterator[SlackHarness]:
    """One app with internal, public and hr documents, an internal form and answer memory."""
    settings = settings_for_tests(
        SLACK_BOT_TOKEN=TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_BASE_URL=fake_slack.url.rstrip("/"),
        SLACK_UPDATE_INTERVAL=0.0,
        SLACK_ADMIN_USER_IDS="U-ADMIN,U-GUESTADMIN",
        SLACK_CHANNEL_COLLECTIONS="CHR:hr",
    )
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode(), collection="internal")
    await ingestion.ingest_bytes("office-hours.md", PUBLIC_DOC.encode(), collection="public")
    await ingestion.ingest_bytes("salary-bands.md", HR_DOC.encode(), collection="hr")
    await FormService(db, 100_000).add(
        "Staff badge renewal form", BADGE_URL, aliases=["badge form"], collection="internal"
    )
    worker = await make_worker(database_url, embedder, settings, memory=True)
    harness = await serve_slack(worker, settings)
    yield harness
    await stop_slack(harness)


def dm(text_: str, ts: str, *, user: str = "U1", channel: str = "D1", **extra: Any) -> dict:
    return {
        "type": "message",
        "channel_type": "im",
        "channel": channel,
        "user": user,
        "text": text_,
        "ts": ts,
        **extra,
    }


async def reply_in(fake: FakeSlack, thread: str, timeout: float = 30, *, db: Database) -> str:
    """The final text the bot posted in thread `thread` (answers, refusals, command output),
    once the work it belongs to is over (`until_settled`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        started = {
            r["ts"]
            for (m, p), (_, r) in zip(fake.calls, fake.responses, strict=True)
            if m in ("chat.postMessage", "chat.startStream") and p.get("thread_ts") == thread
        }
        for method, params in fake.calls:
            if not params.get("blocks"):
                continue
            if (method == "chat.postMessage" and params.get("thread_ts") == thread) or (
                method == "chat.update" and params.get("ts") in started
            ):
                await until_settled(db, timeout)
                return blocks_text(params)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no reply in {thread}; calls: {[m for m, _ in fake.calls]}")


async def outcomes(db: Database) -> list[str]:
    """The stored outcome of each answered turn, oldest first."""
    async with db.sessions() as session:
        rows = await session.execute(
            text(
                "SELECT details -> 'trace' ->> 'outcome' FROM messages"
                " WHERE role = 'assistant' ORDER BY id"
            )
        )
        return [str(r) for r in rows.scalars().all()]


async def test_outsiders_and_guests_get_no_internal_passage_form_or_memory(
    slack: SlackHarness, fake_slack: FakeSlack, db: Database
) -> None:
    # a home-team employee reads internal documents and forms, and the answer is remembered
    await slack.event(mention(PASSPORT_Q, "10.1", user="U1"))
    assert INTERNAL_FACT in await reply_in(fake_slack, "10.1", db=db)
    await slack.event(mention(PASSPORT_Q, "10.2", user="U2"))
    assert INTERNAL_FACT in await reply_in(fake_slack, "10.2", db=db)
    assert (await outcomes(db))[-1] == "memory"  # a colleague is served from the memory
    await slack.event(mention("I need the badge form", "10.3", user="U1"))
    assert BADGE_URL in await reply_in(fake_slack, "10.3", db=db)

    # a Slack Connect user (another team, as the event and users.info say) and guests do not
    for n, (user, extra) in enumerate(
        [("UEXT", {"user_team": "T2"}), ("UGUEST", {}), ("UONE", {})], start=1
    ):
        await slack.event({**mention(PASSPORT_Q, f"2{n}.1", user=user), **extra})
        shown = await reply_in(fake_slack, f"2{n}.1", db=db)
        assert INTERNAL_FACT not in shown, user
        assert (await outcomes(db))[-1] != "memory", user
        await slack.event({**mention("I need the badge form", f"2{n}.2", user=user), **extra})
        assert BADGE_URL not in await reply_in(fake_slack, f"2{n}.2", db=db), user
        # the public collection still answers them
        await slack.event({**mention("When is the service centre open?", f"2{n}.3", user=user)})
        assert "8:30" in await reply_in(fake_slack, f"2{n}.3", db=db), user

    # the forms list follows the asker too
    assert "Staff badge" in await slash_forms(slack, fake_slack, "U1", "T1")
    assert "badge" not in (await slash_forms(slack, fake_slack, "UEXT", "T2")).lower()


async def slash_forms(slack: SlackHarness, fake: FakeSlack, user: str, team: str) -> str:
    """`/ragbot forms` as `user` of `team`: the ephemeral reply's text."""
    await slack.form(
        {
            "command": "/ragbot",
            "text": "forms",
            "user_id": user,
            "user_team_id": team,
            "team_id": team,
            "channel_id": "C1",
            "trigger_id": f"trig-{user}",
            "response_url": f"{fake.root}respond/{user}",
        }
    )
    for _ in range(200):
        if fake.of(f"respond/{user}"):
            break
        await asyncio.sleep(0.05)
    [listing] = fake.of(f"respond/{user}")
    return str(listing["text"])


async def test_a_connect_user_named_by_the_event_is_an_outsider_whatever_users_info_says(
    slack: SlackHarness,
    fake_slack: FakeSlack,
    db: Database,
) -> None:
    await slack.event({**mention(PASSPORT_Q, "30.1", user="U7"), "user_team": "T9"})
    assert INTERNAL_FACT not in await reply_in(fake_slack, "30.1", db=db)


@pytest.mark.parametrize("failure", ["error", "missing fields", "timeout"])
async def test_when_users_info_fails_the_asker_reads_public_only(
    slack: SlackHarness,
    fake_slack: FakeSlack,
    failure: str,
    db: Database,
) -> None:
    if failure == "error":
        fake_slack.failing["users.info"] = "user_not_found"
    elif failure == "missing fields":
        fake_slack.users["U1"] = {"is_restricted": False}  # no team, no ultra flag
    else:
        fake_slack.delays["users.info"] = 1.5
        slack.adapter.listeners.audiences = SlackAudiences(slack.adapter.client, 600, timeout_s=0.3)
    await slack.event(mention(PASSPORT_Q, "40.1", user="U1"))
    assert INTERNAL_FACT not in await reply_in(fake_slack, "40.1", db=db)
    await slack.event(mention("I need the badge form", "40.2", user="U1"))
    assert BADGE_URL not in await reply_in(fake_slack, "40.2", db=db)
    await slack.event(mention("When is the service centre open?", "40.3", user="U1"))
    assert "8:30" in await reply_in(fake_slack, "40.3", db=db)


async def test_a_listed_admin_who_is_a_guest_is_refused_commands_and_uploads(
    slack: SlackHarness, fake_slack: FakeSlack, db: Database
) -> None:
    await slack.event(dm("docs", "50.1", user="U-ADMIN", channel="D2"))
    assert "passport" in await reply_in(fake_slack, "50.1", db=db)  # the home-team admin: listed
    await slack.event(dm("docs", "50.2", user="U-GUESTADMIN", channel="D3"))
    assert "only administrators" in await reply_in(fake_slack, "50.2", db=db)
    await slack.event(dm('delete "passport"', "50.3", user="U-GUESTADMIN", channel="D3"))
    assert "only administrators" in await reply_in(fake_slack, "50.3", db=db)
    fake_slack.files["x.md"] = b"# X\n\nSomething.\n"
    share = dm("upload", "50.4", user="U-GUESTADMIN", channel="D3", subtype="file_share")
    url = f"{fake_slack.root}files/x.md"
    share["files"] = [{"id": "F9", "name": "x.md", "size": 16, "url_private_download": url}]
    await slack.event(share)
    await reply_in(fake_slack, "50.4", db=db)
    assert fake_slack.downloads == []
    async with db.sessions() as session:
        titles = (await session.execute(text("SELECT title FROM documents"))).scalars().all()
    assert "passport" in titles and "x" not in titles


async def test_channel_collections_apply_only_in_their_channel_and_only_to_employees(
    slack: SlackHarness,
    fake_slack: FakeSlack,
    db: Database,
) -> None:
    question = "What is the grade 7 salary band?"
    await slack.event(mention(question, "60.1", user="U1", channel="CHR"))
    assert "52,000" in await reply_in(fake_slack, "60.1", db=db)
    await slack.event(mention(question, "60.2", user="U1", channel="C1"))
    assert "52,000" not in await reply_in(fake_slack, "60.2", db=db)
    await slack.event(mention(question, "60.3", user="UGUEST", channel="CHR"))
    assert "52,000" not in await reply_in(fake_slack, "60.3", db=db)
    # in the HR channel the employee still reads the platform's collections too
    await slack.event(mention(PASSPORT_Q, "60.4", user="U1", channel="CHR"))
    assert INTERNAL_FACT in await reply_in(fake_slack, "60.4", db=db)


async def test_a_dm_question_starting_with_a_command_word_is_answered(
    slack: SlackHarness,
    fake_slack: FakeSlack,
    db: Database,
) -> None:
    await slack.event(dm("help me renew my badge", "70.1"))
    answer = await reply_in(fake_slack, "70.1", db=db)
    # a turn (an answer with feedback buttons), not the help text
    assert "Ask me a question" not in answer and "ragbot_feedback" in answer
    await slack.event(dm("help me with the passport renewal fee", "70.4"))
    assert INTERNAL_FACT in await reply_in(fake_slack, "70.4", db=db)
    await slack.event(dm("help", "70.2"))
    assert "Ask me a question about our services" in await reply_in(fake_slack, "70.2", db=db)
    await slack.event(dm("docs about the passport fee", "70.3"))
    shown = await reply_in(fake_slack, "70.3", db=db)
    assert INTERNAL_FACT in shown and "only administrators" not in shown


def test_only_exact_commands_are_commands_in_a_dm() -> None:
    assert dm_command("help") == ("help", ())
    assert dm_command("Docs") == ("docs", ())
    assert dm_command('delete "Old title"') == ("delete", ("Old title",))
    assert dm_command("memory forget 3") == ("memory", ("forget", "3"))
    assert dm_command("gaps 7") == ("gaps", ("7",))
    assert dm_command("bot") == ("bot", ())
    for question in (
        "help me renew my badge",
        "docs about leave",
        "forms for parking",
        "stats on parking fines?",
        "upload limits for photos",
        "memory of the meeting",
        "gaps between buses at night",
        "bot that answers questions?",
        "",
    ):
        assert dm_command(question) == (None, ()), question


async def test_user_facts_are_cached_for_the_configured_time(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token=TOKEN, base_url=fake_slack.url)
    now = [1000.0]  # the cache's clock, moved by the test
    audiences = SlackAudiences(client, ttl_s=0.5, clock=lambda: now[0])
    assert not (await audiences.audience("U1", "T1", "C1")).guest
    fake_slack.users["U1"] = GUEST  # U1 becomes a guest: seen once the cache expires
    now[0] += 0.4
    assert not (await audiences.audience("U1", "T1", "C1")).guest
    assert len(fake_slack.of("users.info", user="U1")) == 1
    now[0] += 0.2  # 0.6 s after the lookup: expired
    assert (await audiences.audience("U1", "T1", "C1")).guest
    assert len(fake_slack.of("users.info", user="U1")) == 2
    assert (await audiences.audience("U1", "T1", "C1")).channel == "C1"


async def test_a_new_user_in_a_new_channel_is_looked_up_in_one_round_trip(
    fake_slack: FakeSlack,
) -> None:
    # their first message's turn waits for these (after the ack): users.info and
    # conversations.info go together, not one after the other
    client = AsyncWebClient(token=TOKEN, base_url=fake_slack.url)
    audiences = SlackAudiences(client, ttl_s=60)
    await audiences.home_team()  # learned at start
    fake_slack.delays = {"users.info": 0.4, "conversations.info": 0.4}
    started = time.monotonic()
    audience = await audiences.audience("U1", "T1", "C1", in_channel=True)
    assert time.monotonic() - started < 0.7
    assert not audience.guest and not audience.shared_channel
    assert fake_slack.of("users.info", user="U1") and fake_slack.of("conversations.info")


async def test_a_new_sender_is_acknowledged_before_the_lookup_and_answered_by_their_facts(
    slack: SlackHarness,
    fake_slack: FakeSlack,
    db: Database,
) -> None:
    # Slack is slow to say who they are: the ack does not wait for it (the message is
    # stored, pending, and looked up before its turn), the answer still follows the facts
    # (2 s lookups against a 1.5 s bound: room for a loaded machine, still under the
    # lookups' time limit, and an ack that waited for them would take 2 s)
    fake_slack.delays = {"users.info": 2.0, "conversations.info": 2.0}
    for user, ts in (("UGUEST", "61.1"), ("U1", "62.1")):
        started = time.monotonic()
        response = await slack.event(mention(PASSPORT_Q, ts, user=user))
        assert response.status_code == 200
        assert time.monotonic() - started < 1.5, user
    assert INTERNAL_FACT not in await reply_in(fake_slack, "61.1", db=db)  # the guest: public only
    assert INTERNAL_FACT in await reply_in(fake_slack, "62.1", db=db)  # the employee: internal
    assert fake_slack.of("users.info", user="UGUEST") and fake_slack.of("users.info", user="U1")

    # remembered now: the next message's audience is complete before the ack, no lookup
    looked_up = len(fake_slack.of("users.info"))
    await slack.event(mention("I need the badge form", "62.2", user="U1"))
    assert BADGE_URL in await reply_in(fake_slack, "62.2", db=db)
    assert len(fake_slack.of("users.info")) == looked_up


async def test_a_slash_command_is_acknowledged_before_the_lookup_and_answered_by_the_facts(
    slack: SlackHarness, fake_slack: FakeSlack
) -> None:
    # Slack gives a slash command 3 s to be acknowledged; users.info here takes longer
    fake_slack.delays = {"users.info": 3.5}
    for user in ("U1", "UGUEST"):
        command = {
            "command": "/ragbot",
            "text": "forms",
            "user_id": user,
            "user_team_id": "T1",
            "team_id": "T1",
            "channel_id": "C1",
            "trigger_id": f"trig-{user}",
            "response_url": f"{fake_slack.root}respond/{user}",
        }
        started = time.monotonic()
        response = await slack.form(command)
        assert response.status_code == 200 and time.monotonic() - started < 2.0, user
    for user in ("U1", "UGUEST"):
        await until_called(fake_slack, f"respond/{user}", 30)
    [employee] = fake_slack.of("respond/U1")
    [guest] = fake_slack.of("respond/UGUEST")
    assert BADGE_URL in str(employee["text"]) and BADGE_URL not in str(guest["text"])


async def until_called(fake: FakeSlack, method: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not fake.of(method):
        assert time.monotonic() < deadline, f"{method} never called"
        await asyncio.sleep(0.05)


async def test_a_pending_audience_nobody_can_resolve_is_a_guests(
    slack: SlackHarness,
    fake_slack: FakeSlack,
    db: Database,
) -> None:
    # the lookup after the ack fails (or no Slack adapter resolves it): least privileged
    fake_slack.failing["users.info"] = "user_not_found"
    await slack.event(mention(PASSPORT_Q, "63.1", user="U-ADMIN"))
    assert INTERNAL_FACT not in await reply_in(fake_slack, "63.1", db=db)
    await slack.event(dm("docs", "63.2", user="U-ADMIN", channel="D2"))
    shown = await reply_in(fake_slack, "63.2", db=db)
    assert "couldn't verify your Slack account" in shown and "passport" not in shown


async def test_a_new_users_messages_arriving_together_cost_one_lookup(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token=TOKEN, base_url=fake_slack.url)
    audiences = SlackAudiences(client, ttl_s=0)  # nothing remembered: only sharing helps
    await audiences.home_team()
    fake_slack.delays = {"users.info": 0.3, "conversations.info": 0.3}
    found = await asyncio.gather(
        *(audiences.audience("U1", "T1", "C1", in_channel=True) for _ in range(5)),
        audiences.audience("UGUEST", "T1", "C1", in_channel=True),
    )
    assert [a.guest for a in found] == [False] * 5 + [True]
    assert len(fake_slack.of("users.info", user="U1")) == 1
    assert len(fake_slack.of("users.info", user="UGUEST")) == 1
    assert len(fake_slack.of("conversations.info")) == 1
    await audiences.audience("U1", "T1", "C1")  # done: the next message asks again (ttl 0)
    assert len(fake_slack.of("users.info", user="U1")) == 2


async def test_what_is_remembered_completes_an_audience_and_nothing_else_does(
    fake_slack: FakeSlack,
) -> None:
    client = AsyncWebClient(token=TOKEN, base_url=fake_slack.url)
    audiences = SlackAudiences(client, ttl_s=60)
    # nothing known yet, not even the home team: pending, and a guest's meanwhile
    first = audiences.known("U1", "T1", "C1", in_channel=True)
    assert first.pending and first.guest and first.shared_channel and not first.verified
    assert (first.sender_team, first.channel, first.in_channel) == ("T1", "C1", True)
    learned = await audiences.resolve(first, "U1")
    assert not learned.pending and not learned.guest and not learned.shared_channel
    assert audiences.known("U1", "T1", "C1", in_channel=True) == learned  # no call now
    # the user known but not this channel (read by everyone there): still pending
    assert audiences.known("U1", "T1", "C2", in_channel=True).pending
    assert not audiences.known("U1", "T1", "C2").pending  # a DM: the channel does not count
    assert audiences.known(None, "T1", "C2").guest  # nobody to look up: a guest at once
    # nothing is remembered with a cache time of 0: every message is looked up after its ack
    uncached = SlackAudiences(client, ttl_s=0)
    await uncached.resolve(uncached.known("U1", "T1", "D1"), "U1")
    assert uncached.known("U1", "T1", "D1").pending


def replies_in(fake: FakeSlack, thread: str) -> list[str]:
    """Every final text posted in thread `thread` so far (answers are updated in place)."""
    started = {
        r["ts"]
        for (m, p), (_, r) in zip(fake.calls, fake.responses, strict=True)
        if m in ("chat.postMessage", "chat.startStream") and p.get("thread_ts") == thread
    }
    return [
        blocks_text(params)
        for method, params in list(fake.calls)
        if params.get("blocks")
        and (
            (method == "chat.postMessage" and params.get("thread_ts") == thread)
            or (method == "chat.update" and params.get("ts") in started)
        )
    ]


def uploaded_files(fake: FakeSlack) -> int:
    """How many files the bot uploaded (form files go to the thread with files_upload_v2)."""
    return len(fake.of("files.getUploadURLExternal"))


@pytest.mark.parametrize(
    "flags",
    [
        {"is_ext_shared": True, "is_shared": True},  # Slack Connect
        {"is_org_shared": True},  # shared across an org's workspaces
        {"is_pending_ext_shared": True},  # an invitation sent, not yet accepted
        {"pending_connected_team_ids": ["T2"]},
    ],
)
async def test_in_a_shared_channel_an_employee_gets_only_what_guests_read(
    slack: SlackHarness, fake_slack: FakeSlack, db: Database, flags: dict[str, Any]
) -> None:
    fake_slack.channels["CEXT"] = flags
    fake_slack.channels["CHR"] = flags  # an HR channel that became shared adds nothing
    # the same employee in a normal channel and in a DM reads internal (so this can fail)
    await slack.event(mention(PASSPORT_Q, "80.1", user="U1", channel="C1"))
    assert INTERNAL_FACT in await reply_in(fake_slack, "80.1", db=db)
    await slack.event(dm("I need the badge form", "80.2", user="U1"))
    assert BADGE_URL in await reply_in(fake_slack, "80.2", db=db)

    # in the shared channel: no internal passage, memory entry, form or channel collection
    await slack.event(mention(PASSPORT_Q, "81.1", user="U1", channel="CEXT"))
    assert INTERNAL_FACT not in await reply_in(fake_slack, "81.1", db=db)
    assert (await outcomes(db))[-1] != "memory"
    await slack.event(mention("I need the badge form", "81.2", user="U1", channel="CEXT"))
    assert BADGE_URL not in await reply_in(fake_slack, "81.2", db=db)
    await slack.event(mention("What is the grade 7 salary band?", "81.3", channel="CHR"))
    assert "52,000" not in await reply_in(fake_slack, "81.3", db=db)
    await slack.event(mention("When is the service centre open?", "81.4", channel="CEXT"))
    assert "8:30" in await reply_in(fake_slack, "81.4", db=db)  # public still answers
    assert uploaded_files(fake_slack) == 0
    # a reply in the shared channel's thread is the same channel
    reply = {**dm(PASSPORT_Q, "81.5", channel="CEXT"), "thread_ts": "81.1"}
    reply["channel_type"] = "channel"
    await slack.event(reply)
    for _ in range(600):
        if len(replies_in(fake_slack, "81.1")) > 1:
            break
        await asyncio.sleep(0.05)
    later = replies_in(fake_slack, "81.1")[1:]
    assert later and not any(INTERNAL_FACT in shown for shown in later)
    # the channel's facts were asked once (cached), the DM's never
    assert len(fake_slack.of("conversations.info", channel="CEXT")) == 1
    assert fake_slack.of("conversations.info", channel="D1") == []


async def test_when_the_channel_cannot_be_looked_up_answers_there_are_public_only(
    slack: SlackHarness,
    fake_slack: FakeSlack,
    db: Database,
) -> None:
    fake_slack.failing["conversations.info"] = "channel_not_found"
    await slack.event(mention(PASSPORT_Q, "90.1", user="U1", channel="C1"))
    assert INTERNAL_FACT not in await reply_in(fake_slack, "90.1", db=db)
    await slack.event(mention("I need the badge form", "90.2", user="U1", channel="C1"))
    assert BADGE_URL not in await reply_in(fake_slack, "90.2", db=db)
    await slack.event(mention("When is the service centre open?", "90.3", channel="C1"))
    assert "8:30" in await reply_in(fake_slack, "90.3", db=db)
    # a DM needs no channel facts
    await slack.event(dm(PASSPORT_Q, "90.4", user="U1"))
    assert INTERNAL_FACT in await reply_in(fake_slack, "90.4", db=db)
    # missing shared flags count as a failure too, and failures are not remembered
    del fake_slack.failing["conversations.info"]
    fake_slack.channels["C2"] = {"is_shared": None}
    await slack.event(mention(PASSPORT_Q, "90.5", user="U1", channel="C2"))
    assert INTERNAL_FACT not in await reply_in(fake_slack, "90.5", db=db)
    await slack.event(mention(PASSPORT_Q, "90.6", user="U1", channel="C1"))
    assert INTERNAL_FACT in await reply_in(fake_slack, "90.6", db=db)


async def test_a_missing_users_read_scope_is_one_clear_error_at_start_and_admins_are_told(
    slack: SlackHarness,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
    db: Database,
) -> None:
    fake_slack.failing["users.info"] = "missing_scope"
    adapter = SlackAdapter(slack.worker.core, slack.adapter._settings)
    slack.adapter.listeners.audiences = adapter.audiences  # the harness serves its facts
    with caplog.at_level("WARNING"):
        await adapter.start()  # does not fail
        errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert len(errors) == 1 and "users:read" in errors[0] and "guest" in errors[0]
        assert fake_slack.of("users.info", user="UBOT")
        # a listed admin is told their account could not be verified, not "not an admin"
        await slack.event(dm("docs", "95.1", user="U-ADMIN", channel="D2"))
        shown = await reply_in(fake_slack, "95.1", db=db)
        assert "couldn't verify your Slack account" in shown and "passport" not in shown
        assert "only administrators" not in shown
        # a colleague gets public answers, and the error is not repeated per message
        await slack.event(mention(PASSPORT_Q, "95.2", user="U1"))
        assert INTERNAL_FACT not in await reply_in(fake_slack, "95.2", db=db)
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1
    # a non-admin whose facts failed is still just not an admin
    await slack.event(dm("docs", "95.3", user="U5", channel="D5"))
    assert "only administrators" in await reply_in(fake_slack, "95.3", db=db)
    await adapter.close()


@pytest.mark.parametrize(
    ("value", "complaint"),
    [
        ("C0123:hr:extra", "bad collection 'hr:extra'"),
        ("C0123:HR", "bad collection 'HR'"),
        ("C0123:", "bad collection ''"),
        ("general:hr", "is not CHANNEL_ID:collection"),
        ("hr", "is not CHANNEL_ID:collection"),
    ],
)
def test_bad_channel_collections_stop_the_slack_adapter_with_one_line(
    value: str, complaint: str
) -> None:
    settings = settings_for_tests(
        SLACK_BOT_TOKEN=TOKEN, SLACK_SIGNING_SECRET=SECRET, SLACK_CHANNEL_COLLECTIONS=value
    )
    with pytest.raises(ConfigurationError) as raised:
        SlackAdapter(None, settings)  # type: ignore[arg-type]  # refused before the core is used
    message = str(raised.value)
    assert "SLACK_CHANNEL_COLLECTIONS" in message and complaint in message
    assert "\n" not in message


def test_good_channel_collections_are_read() -> None:
    settings = settings_for_tests(SLACK_CHANNEL_COLLECTIONS="C0123:hr, G77:finance,C0123:hr-2")
    assert settings.channel_collections("slack") == {
        "C0123": ("hr", "hr-2"),
        "G77": ("finance",),
    }
    # the settings repeat the storage's collection-name rule: they must stay the same
    assert bot_settings._COLLECTION_NAME.pattern == COLLECTION_NAME.pattern


@pytest.mark.parametrize("kind", ["text/html", "text/plain", "application/json"])
async def test_a_proxys_html_error_page_is_one_log_line_not_a_stop(
    kind: str,
    slack: SlackHarness,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
    db: Database,
) -> None:
    # a proxy in front of Slack answers users.info with its 502 page, under any content type
    fake_slack.pages["users.info"] = (502, kind)
    adapter = SlackAdapter(slack.worker.core, slack.adapter._settings)
    slack.adapter.listeners.audiences = adapter.audiences  # the harness serves its facts
    with caplog.at_level("WARNING"):
        await adapter.start()  # does not fail
        said = [r for r in caplog.records if "users.info" in r.getMessage()]
        assert len(said) == 1 and "502" in said[0].getMessage()
        assert said[0].exc_info is None and "\n" not in said[0].getMessage()
        assert "<html" not in said[0].getMessage()
        # per message: the sender is a guest, and the channel shared when that page answers too
        fake_slack.pages["conversations.info"] = (502, kind)
        await slack.event(mention(PASSPORT_Q, "96.1", user="U1"))
        assert INTERNAL_FACT not in await reply_in(fake_slack, "96.1", db=db)
    shown = [r for r in caplog.records if "conversations.info" in r.getMessage()]
    assert shown and all(r.exc_info is None and "\n" not in r.getMessage() for r in shown)
    await adapter.close()


@pytest.mark.parametrize("kind", ["text/html", "text/plain", "application/json"])
async def test_an_html_page_answering_auth_test_at_start_is_one_error(
    kind: str, fake_slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    fake_slack.pages["auth.test"] = (404, kind)
    audiences = SlackAudiences(AsyncWebClient(token=TOKEN, base_url=fake_slack.url), ttl_s=60)
    with caplog.at_level("WARNING"):
        await audiences.check_access()  # logs, never raises
    said = [r.getMessage() for r in caplog.records]
    assert any("auth.test" in m and "404" in m for m in said)
    assert all("\n" not in m and "<html" not in m for m in said)
