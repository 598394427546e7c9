"""Slack and the inbox/outbox: nothing acknowledged before it is stored, a dead worker's
answer finished in its own message, 429s that hold only their channel.

The real bolt app and slack-sdk against the fake Slack API, on the embedded Postgres.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.web.async_client import AsyncWebClient
from sqlalchemy import text

from bot.core.delivery.envelopes import encode
from bot.core.delivery.inbox import Delivery
from bot.core.messages import Audience, InboundMessage, Progress, Queued
from bot.slack import translate
from bot.slack.responder import SlackResponder
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from storage.repositories import inbox as inbox_repo
from tests.slack.test_slack import (
    SlackHarness,
    blocks_text,
    fake_slack,
    mention,
    serve_slack,
    slack_settings,
    stop_slack,
)
from tests.support.core_fixtures import (
    DOCS,
    make_worker,
    until,
    until_settled,
    window_with_time_left,
)
from tests.support.fake_slack import BOT_USER, TOKEN, FakeSlack
from textkit.catalog import say

__all__ = ["fake_slack"]  # the fixture, defined with the adapter's tests

LATE = "Sorry for the delay"  # say("inbox:late", "en")


@pytest.fixture
async def documents(db: Database, embedder: Embedder) -> None:
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode(), collection="internal")


@pytest.fixture
async def start(
    documents: None, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> AsyncIterator[Any]:
    """Start one app instance with extra settings; stopped (drained) after the test."""
    started: list[SlackHarness] = []

    async def run(sweeping: bool = True, **extra: Any) -> SlackHarness:
        settings = slack_settings(fake_slack, **extra)
        worker = await make_worker(database_url, embedder, settings)
        harness = await serve_slack(worker, settings, sweeping=sweeping)
        started.append(harness)
        return harness

    yield run
    for harness in started:
        await stop_slack(harness)


def finals(fake: FakeSlack, **where: str) -> list[tuple[str, dict[str, Any], float]]:
    """Final messages shown so far (an update or post with blocks): (method, params, time)."""
    return [
        (m, p, t)
        for (m, p), t in zip(list(fake.calls), list(fake.times), strict=False)
        if m in ("chat.update", "chat.postMessage")
        and p.get("blocks")
        and all(p.get(k) == v for k, v in where.items())
    ]


async def inbox_rows(db: Database) -> list[tuple[str, str]]:
    async with db.sessions() as session:
        rows = await session.execute(text("SELECT event_id, status FROM processed_events"))
        return [(r[0], r[1]) for r in rows]


async def counted_in_one_window(db: Database, user: str) -> int:
    """What `user`'s current rate-limit window holds (a new window starts from 1: a count
    short of everything sent means the minute turned while the test was counting)."""
    async with db.sessions() as session:
        row = await session.execute(
            text("SELECT count FROM rate_limits WHERE user_id = :user"), {"user": user}
        )
        return int(row.scalar_one())


# --- (a) a 429 on the final message: retried after Retry-After, delivered once ------------


@pytest.mark.parametrize("method", ["chat.update", "chat.postMessage"])
async def test_a_final_message_meeting_two_429s_is_delivered_after_them_once(
    start: Any, fake_slack: FakeSlack, method: str
) -> None:
    slack = await start()
    fake_slack.throttle(method, times=2, retry_after=1, when=lambda p: bool(p.get("blocks")))
    if method == "chat.update":  # an answer: the stream's message becomes the answer
        await slack.event(mention("How much does a passport renewal cost?", "100.1"))
    else:  # a command's reply in a DM is a message of its own
        dm = {"type": "message", "channel_type": "im", "channel": "D1", "user": "U1"}
        await slack.event({**dm, "text": "help", "ts": "100.1"})
    await until(lambda: len(finals(fake_slack)) >= 1)
    await until_settled(slack.worker.db)  # nothing left that could show a duplicate
    [(shown_by, final, shown_at)] = finals(fake_slack)
    refused = [
        t
        for (m, p), t in zip(fake_slack.calls, fake_slack.times, strict=False)
        if m == f"429:{method}" and p.get("blocks")
    ]
    assert shown_by == method and len(refused) == 2
    assert shown_at - refused[0] >= 1.9  # Retry-After honoured both times
    assert ("1,300" if method == "chat.update" else "Ask me a question") in blocks_text(final)


# --- (b) not acknowledged when not accepted -----------------------------------------------


async def test_while_draining_an_event_gets_503_and_nothing_runs(
    start: Any, fake_slack: FakeSlack, db: Database
) -> None:
    slack = await start()
    slack.worker.core.begin_drain()
    response = await slack.event(mention("passport renewal fee?", "200.1"))
    assert response.status_code == 503
    await until_settled(db)
    assert await inbox_rows(db) == []
    assert not [m for m, _ in fake_slack.calls if m.startswith("chat.")]


async def test_a_slash_command_sent_while_draining_is_answered_by_the_next_worker(
    start: Any, fake_slack: FakeSlack, db: Database
) -> None:
    """Slack never sends a slash command again (a 503 would only show the user an
    error): the draining worker stores it, runs nothing, and the next one answers it."""
    draining = await start()
    draining.worker.core.begin_drain()
    response = await draining.form(
        {
            "command": "/ragbot",
            "text": "help",
            "user_id": "U1",
            "channel_id": "C1",
            "trigger_id": "trig-drain",
            "team_id": "T1",
            "response_url": f"{fake_slack.root}respond/drain",
        }
    )
    assert response.status_code == 200
    assert await draining.worker.core.drain(5)  # its drain found nothing to finish…
    assert not fake_slack.of("respond/drain")  # …so nothing new ran on the draining worker
    assert [status for _, status in await inbox_rows(db)] == ["claimed"]
    await start()  # the next worker's sweep finds it
    await until(lambda: bool(fake_slack.of("respond/drain")))
    await until_settled(db)  # nothing left that could send a second reply
    [reply] = fake_slack.of("respond/drain")
    assert "Ask me a question" in reply["text"]
    assert [status for _, status in await inbox_rows(db)] == ["done"]


async def test_an_event_the_core_refuses_is_not_acknowledged_in_socket_mode_either(
    start: Any, fake_slack: FakeSlack, db: Database
) -> None:
    """Past the HTTP route (Socket Mode has none), a refused accept is a non-200 bolt
    response: the Socket Mode handler sends no ack for it, and Slack redelivers."""
    slack = await start()
    slack.worker.core.begin_drain()
    envelope = {
        "type": "event_callback",
        "team_id": "T1",
        "event_id": "EvSock",
        "event": mention("passport renewal fee?", "210.1"),
    }
    request = AsyncBoltRequest(body=json.dumps(envelope), mode="socket_mode")
    response = await slack.adapter.app.async_dispatch(request)
    assert response.status != 200
    await until_settled(db)
    assert await inbox_rows(db) == [] and not fake_slack.of("chat.startStream")


async def test_when_postgres_refuses_the_accept_slack_gets_a_5xx_and_its_retry_is_answered(
    start: Any, fake_slack: FakeSlack, db: Database
) -> None:
    slack = await start()
    async with db.transaction() as session:  # the inbox's insert fails, as with Postgres down
        await session.execute(
            text(
                "CREATE FUNCTION refuse_inbox() RETURNS trigger LANGUAGE plpgsql AS"
                " $$ BEGIN RAISE EXCEPTION 'inbox unavailable'; END $$"
            )
        )
        await session.execute(
            text(
                "CREATE TRIGGER refuse_inbox BEFORE INSERT ON processed_events"
                " FOR EACH ROW EXECUTE FUNCTION refuse_inbox()"
            )
        )
    try:
        event = mention("How much does a passport renewal cost?", "220.1")
        refused = await slack.event(event, event_id="EvDown")
        command = await slack.form(
            {
                "command": "/ragbot",
                "text": "help",
                "user_id": "U1",
                "channel_id": "C1",
                "trigger_id": "trig-down",
                "team_id": "T1",
                "response_url": f"{fake_slack.root}respond/down",
            }
        )
    finally:
        async with db.transaction() as session:
            await session.execute(text("DROP TRIGGER refuse_inbox ON processed_events"))
            await session.execute(text("DROP FUNCTION refuse_inbox()"))
    assert refused.status_code >= 500 and command.status_code >= 500
    await until_settled(db)
    assert not [m for m, _ in fake_slack.calls if m.startswith("chat.")]
    # Slack retries the event: now it is accepted, and answered once
    retry = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_error"}
    assert (await slack.event(event, event_id="EvDown", headers=retry)).status_code == 200
    await until(lambda: len(finals(fake_slack)) >= 1)
    await until_settled(db)  # nothing left that could send a second answer
    [(_, final, _)] = finals(fake_slack)
    assert "1,300" in blocks_text(final)


async def test_a_turn_waiting_for_a_slot_says_it_is_in_line_then_works_in_that_message(
    fake_slack: FakeSlack,
) -> None:
    """The first thing seen comes at once even when every turn slot is busy: a pending
    task saying the question is in line, which becomes the running task (no second
    message) when the turn starts."""
    client = AsyncWebClient(token=TOKEN, base_url=fake_slack.url)
    route = {"channel": "C1", "thread_ts": "310.1", "user": "U1", "team": "T1"}
    message = InboundMessage("slack", "Ev-queued", "fee?", "U1", route=route)

    async def enqueue(chat: str, key: str, payload: dict[str, Any], trace: Any = None) -> bool:
        return True

    responder = SlackResponder(client, Delivery(message), enqueue, streaming=True, interval_s=0)
    await responder.render(Queued(say("inbox:queued", "en"), "en"))
    [opened] = fake_slack.of("chat.startStream")
    tasks = [c for c in opened["chunks"] if c["type"] == "task_update"]
    assert [(c["status"], c["title"]) for c in tasks] == [("pending", say("inbox:queued", "en"))]
    # a question in line can be stopped already: the stream carries the Stop button
    [buttons] = [c["blocks"] for c in opened["chunks"] if c["type"] == "blocks"]
    assert buttons[0]["elements"][0]["action_id"] == "ragbot_stop"
    await responder.render(Progress("received", say("progress:received", "en"), "en"))
    [running] = fake_slack.of("chat.appendStream")
    started = next(i for i, (m, _) in enumerate(fake_slack.calls) if m == "chat.startStream")
    assert running["ts"] == fake_slack.responses[started][1]["ts"]  # the same message
    assert [(c["id"], c["status"]) for c in running["chunks"]] == [("work", "in_progress")]
    assert len(fake_slack.of("chat.startStream")) == 1 and not fake_slack.of("chat.postMessage")


# --- (c) a dead worker's delivery, resumed ------------------------------------------------


@pytest.mark.parametrize("mode", ["update", "stream"])
async def test_a_resumed_delivery_finishes_the_dead_workers_message_without_a_second_answer(
    start: Any, fake_slack: FakeSlack, db: Database, mode: str
) -> None:
    slack = await start(sweeping=False)  # only the sweep below takes the row
    client = slack.adapter.client
    # the dead worker had accepted the mention and shown its placeholder (or stream)
    if mode == "stream":
        dead = await client.chat_startStream(channel="C1", thread_ts="300.1", chunks=[])
    else:
        dead = await client.chat_postMessage(channel="C1", thread_ts="300.1", text="_Looking…_")
    event = mention("How much does a passport renewal cost?", "300.1")
    audience = Audience(guest=False, channel="C1", verified=True)
    message = translate.inbound_message(event, BOT_USER, slack.adapter.fetch_file, audience, "T1")
    async with db.transaction() as session:
        await inbox_repo.accept(session, "slack", message.delivery_id, encode(message), -1)
        await inbox_repo.record_posted(
            session, "slack", message.delivery_id, {"ts": dead["ts"], "mode": mode}
        )
        await session.execute(  # it was accepted a while ago, then its worker died
            text("UPDATE processed_events SET received_at = now() - interval '2 minutes'")
        )
    before = len(fake_slack.calls)

    assert await slack.worker.core.inbox.sweep() == 1
    await until(lambda: len(finals(fake_slack)) >= 1)
    await until_settled(db)  # nothing left that could send a second answer
    [(method, final, _)] = finals(fake_slack)
    assert method == "chat.update" and final["ts"] == dead["ts"]
    shown = blocks_text(final)
    assert "1,300" in shown and LATE in shown
    later = [m for m, _ in fake_slack.calls[before:]]
    assert "chat.startStream" not in later and "chat.postMessage" not in later
    if mode == "stream":
        assert fake_slack.of("chat.stopStream", ts=dead["ts"])
    assert await inbox_rows(db) == [(message.delivery_id, "done")]


# --- (d) one channel's 429 does not slow another's answer ----------------------------------


async def test_a_channel_held_by_a_429_does_not_slow_another_channels_answer(
    start: Any, fake_slack: FakeSlack
) -> None:
    # one turn at a time: a turn that waited out the 429 itself would hold the only slot
    slack = await start(MAX_CONCURRENT_TURNS=1)
    fake_slack.throttle(
        "chat.update",
        retry_after=6,
        when=lambda p: p.get("channel") == "CA" and bool(p.get("blocks")),
    )
    await slack.event(mention("How much does a passport renewal cost?", "400.1", channel="CA"))
    await until(lambda: bool(fake_slack.of("429:chat.update")))
    held_at = time.monotonic()
    await slack.event(mention("How much does a passport renewal cost?", "400.2", channel="CB"))
    await until(lambda: bool(finals(fake_slack, channel="CB")))
    other_s = finals(fake_slack, channel="CB")[0][2] - held_at
    await until(lambda: bool(finals(fake_slack, channel="CA")), timeout=30)
    held_s = finals(fake_slack, channel="CA")[0][2] - held_at
    print(f"\nanswer in the other channel after {other_s:.2f} s; held channel {held_s:.2f} s")
    assert held_s >= 5.5  # Slack's Retry-After was honoured…
    assert other_s < 3.0  # …by the held channel alone
    assert "1,300" in blocks_text(finals(fake_slack, channel="CA")[0][1])
    assert len(finals(fake_slack)) == 2


# --- rate limits cover buttons ----------------------------------------------------------


@pytest.mark.parametrize("admin", [False, True])
async def test_votes_over_the_rate_limit_do_nothing_and_get_one_private_notice(
    start: Any, fake_slack: FakeSlack, db: Database, admin: bool
) -> None:
    # an admin (known from their question: a home-team member) is spared the limit
    slack = await start(RATE_LIMIT_PER_MINUTE=2, SLACK_ADMIN_USER_IDS="U7" if admin else "")
    # what is counted falls in one rate-limit window (a calendar minute) each time: the
    # admin's question (counted as a guest's until they are known, then taken back)…
    await window_with_time_left(5)
    asker = "U7" if admin else "U1"  # the admin's question tells the bot who they are
    await slack.event(mention("How much does a passport renewal cost?", "500.1", user=asker))
    await until(lambda: len(finals(fake_slack)) >= 1)
    [(_, answer, _)] = finals(fake_slack)
    button = next(b for b in answer["blocks"] if b.get("block_id") == "ragbot_feedback")
    element = button["elements"][0]

    def click(n: int) -> dict[str, Any]:
        action = "ragbot_feedback"
        value = element["positive_button" if n % 2 else "negative_button"]["value"]
        return {
            "type": "block_actions",
            "user": {"id": "U7", "team_id": "T1"},
            "channel": {"id": "C1"},
            "team": {"id": "T1"},
            "trigger_id": f"t{n}",
            "api_app_id": "A1",
            "container": {"type": "message", "channel_id": "C1", "message_ts": answer["ts"]},
            "message": {"ts": answer["ts"], "thread_ts": "500.1", "text": "x", **answer},
            "actions": [
                {
                    "action_id": action,
                    "value": value,
                    "block_id": "ragbot_feedback",
                    "type": "feedback_buttons",
                    "action_ts": f"9{n}.5",
                }
            ],
        }

    await window_with_time_left(5)  # …and the presses
    for n in range(1, 6):  # two within the limit, three over it
        assert (await slack.form({"payload": json.dumps(click(n))})).status_code == 200
    if admin:  # every press taken (handled in the background, in any order): no notice
        await until(lambda: bool(fake_slack.of("chat.update")))
        assert await slack.adapter.listeners.settle()  # every press handled…
        await until_settled(db)  # …and whatever it had to say sent
        assert not fake_slack.of("chat.postEphemeral")
        async with db.sessions() as session:
            votes = (await session.execute(text("SELECT count(*) FROM feedback"))).scalar()
            counted = await session.execute(
                text("SELECT coalesce(sum(count), 0) FROM rate_limits WHERE user_id = 'U7'")
            )
            assert votes == 1 and counted.scalar() == 0  # nothing of theirs was counted
        return
    await until(lambda: bool(fake_slack.of("chat.postEphemeral")))
    assert await slack.adapter.listeners.settle()  # every press handled…
    await until_settled(db)  # …and whatever it had to say sent
    assert await counted_in_one_window(db, "U7") == 5  # (the window did not turn meanwhile)
    [notice] = fake_slack.of("chat.postEphemeral")
    assert notice["user"] == "U7" and "2" in notice["text"]
    taken = [p for p in fake_slack.of("chat.update") if "feedback was recorded" in json.dumps(p)]
    assert len(taken) == 2  # the clicks over the limit changed nothing
    async with db.sessions() as session:  # one vote per person per answer, whichever won
        assert (await session.execute(text("SELECT count(*) FROM feedback"))).scalar() == 1


async def test_senders_looked_up_after_the_ack_keep_their_rate_limit_and_exemption(
    start: Any, fake_slack: FakeSlack
) -> None:
    # nothing remembered (cache time 0): every message is acknowledged with a pending
    # audience and limited as a guest's would be; once the sender is known, an admin's
    # messages are answered all the same, an employee's over the limit get the notice
    slack = await start(
        RATE_LIMIT_PER_MINUTE=1, SLACK_USER_CACHE_SECONDS=0, SLACK_ADMIN_USER_IDS="U-ADMIN"
    )
    # every message is counted when accepted, before its ack: all in one window
    await window_with_time_left(5)
    question = "How much does a passport renewal cost?"
    for n, user in enumerate(["U-ADMIN"] * 3 + ["U1"] * 3, start=1):
        await slack.event(mention(question, f"600.{n}", user=user, channel=f"C6{n}"))
    assert await counted_in_one_window(slack.worker.db, "U1") == 3
    await until(lambda: len(finals(fake_slack)) >= 4, timeout=60)
    await until_settled(slack.worker.db)  # nothing left that could send a late one
    answered = {p["channel"] for _, p, _ in finals(fake_slack) if "1,300" in blocks_text(p)}
    assert answered == {"C61", "C62", "C63", "C64"}  # the admin's three, U1's first
    notices = [p for _, p, _ in finals(fake_slack) if p["channel"] in ("C65", "C66")]
    assert len(notices) == 1 and "1,300" not in blocks_text(notices[0])
