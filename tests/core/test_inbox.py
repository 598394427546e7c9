"""The inbox against the real embedded Postgres: accepted messages are answered once, even
when the worker that took them dies, fails, drains or is flooded.

No adapter here: each worker registers a small in-process renderer (what an adapter's
`_answer` loop does: show every event of a delivery), so these are the core's own
guarantees, with two ServingCores (two engines, as two processes) on one database.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import text

import bot.core.delivery.inbox as inbox_mod
import bot.core.serving as dispatcher_mod
from bot.core.delivery.envelopes import encode
from bot.core.delivery.inbox import Delivery
from bot.core.messages import (
    Audience,
    FinalAnswer,
    InboundMessage,
    Outbound,
    Progress,
    Queued,
    Reply,
)
from bot.core.serving import ShuttingDownError
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from storage.repositories import inbox as inbox_repo
from tests.support.core_fixtures import (
    DOCS,
    Worker,
    close_worker,
    make_worker,
    message,
    settings_for_tests,
    until,
    window_with_time_left,
)
from textkit.catalog import say

QUESTION = "How much does a passport renewal cost?"

Hook = Callable[[Delivery, Outbound], Awaitable[None]]


class Screen:
    """An adapter's renderer, in-process: remembers what every delivery showed.

    `hook(delivery, event)` runs on each event before it is shown (a test makes a
    renderer hang, fail or post something there).
    """

    def __init__(self, hook: Hook | None = None) -> None:
        self.hook = hook
        self.shown: dict[str, list[Outbound]] = defaultdict(list)
        self.deliveries: list[Delivery] = []

    async def __call__(self, delivery: Delivery, events: AsyncIterator[Outbound]) -> None:
        self.deliveries.append(delivery)
        async for event in events:
            if self.hook is not None:
                await self.hook(delivery, event)
            self.shown[delivery.message.delivery_id].append(event)

    def finals(self, delivery_id: str | None = None) -> list[FinalAnswer]:
        """The complete answers shown (for one delivery, or all)."""
        return [
            e
            for d, events in self.shown.items()
            if delivery_id in (None, d)
            for e in events
            if isinstance(e, FinalAnswer)
        ]


def _held_screen() -> tuple[Screen, asyncio.Event, asyncio.Event]:
    """A renderer holding every delivery at its first event: (the screen, set once a
    delivery reached it, set to let them all go on)."""
    showing, held = asyncio.Event(), asyncio.Event()

    async def hang(delivery: Delivery, event: Outbound) -> None:
        showing.set()
        await held.wait()

    return Screen(hang), showing, held


NewWorker = Callable[..., Awaitable[Worker]]


@pytest.fixture
async def new_worker(
    db: Database, database_url: str, embedder: Embedder
) -> AsyncIterator[NewWorker]:
    """Start workers (each its own engine and core) with the sample documents in the index.

    `new_worker(screen, **settings)`: the worker renders Slack deliveries on `screen`.
    Every worker is drained and closed at the end.
    """
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode())
    started: list[Worker] = []

    async def go(screen: Screen, **values: Any) -> Worker:
        worker = await make_worker(
            database_url, embedder, settings_for_tests(**values), open_jobs=False
        )
        worker.core.register_renderer("slack", screen)
        started.append(worker)
        return worker

    yield go
    for worker in started:
        await worker.core.drain(5)
        await worker.core.outbox.stop(1)
        await close_worker(worker)


async def _rate_count(db: Database, user_id: str) -> int:
    """The messages counted in `user_id`'s rate-limit window."""
    async with db.sessions() as session:
        counted = await session.execute(
            text("SELECT count FROM rate_limits WHERE user_id = :u"), {"u": user_id}
        )
        return int(counted.scalar_one())


async def _row(db: Database, delivery_id: str) -> dict[str, Any]:
    async with db.sessions() as session:
        row = (
            await session.execute(
                text(
                    "SELECT status, payload, attempts, last_error, posted,"
                    " lease_until < now() AS expired FROM processed_events"
                    " WHERE platform = 'slack' AND event_id = :id"
                ),
                {"id": delivery_id},
            )
        ).one()
    return dict(row._mapping)


async def _until_status(db: Database, delivery_id: str, status: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while (await _row(db, delivery_id))["status"] != status:
        assert time.monotonic() < deadline, f"{delivery_id} never {status}"
        await asyncio.sleep(0.05)


def _task_of(delivery_id: str) -> asyncio.Task[Any]:
    """The background task answering a delivery (named by the inbox)."""
    (task,) = [t for t in asyncio.all_tasks() if t.get_name() == f"delivery {delivery_id}"]
    return task


async def test_an_accepted_message_is_rendered_answered_and_forgotten_once(
    new_worker: NewWorker, db: Database
) -> None:
    screen, other = Screen(), Screen()
    first = await new_worker(screen)
    second = await new_worker(other)
    asked = message(QUESTION, delivery="Ev-accept", route={"channel": "C1", "thread_ts": "1.2"})
    assert (await first.core.accept(asked)).stored is True
    await _until_status(db, "Ev-accept", "done")
    events = screen.shown["Ev-accept"]
    # typing starts with the turn; the one complete answer ends it
    assert isinstance(events[0], Progress) and events[0].step == "received"
    (final,) = screen.finals()
    assert "1,300 dollars" in final.text
    assert screen.deliveries[0].message.route == {"channel": "C1", "thread_ts": "1.2"}
    row = await _row(db, "Ev-accept")
    assert row["payload"] is None  # the stored (unmasked) message is dropped once answered
    # the platform redelivers, to either worker: acknowledged, nothing runs again
    assert (await first.core.accept(asked)).stored is False
    assert (await second.core.accept(asked)).stored is False
    await second.core.inbox.sweep()
    await asyncio.sleep(0.3)
    assert len(screen.deliveries) == 1 and other.deliveries == []
    async with db.sessions() as session:
        answers = (
            await session.execute(text("SELECT count(*) FROM messages WHERE role = 'assistant'"))
        ).scalar_one()
    assert answers == 1


@pytest.mark.parametrize("late", [True, False])
async def test_a_dead_workers_message_is_answered_once_by_another_worker(
    new_worker: NewWorker, db: Database, monkeypatch: pytest.MonkeyPatch, late: bool
) -> None:
    if late:  # the message waits over a second (the lease) before the second worker takes it
        monkeypatch.setattr(inbox_mod, "LATE_AFTER_S", 0.5)
    hung = asyncio.Event()

    async def post_then_hang(delivery: Delivery, event: Outbound) -> None:
        if isinstance(event, Progress) and not hung.is_set():
            await delivery.record_posted({"message_id": 42})  # a placeholder exists
            hung.set()
            await asyncio.Event().wait()  # the model is still thinking when the worker dies

    dying_screen, live_screen = Screen(post_then_hang), Screen()
    # the dying worker renews no leases (its loops are not running): dead is dead
    dying = await new_worker(dying_screen, DELIVERY_LEASE_SECONDS=1)
    live = await new_worker(live_screen, DELIVERY_LEASE_SECONDS=1, INBOX_SWEEP_SECONDS=0.1)
    assert await dying.core.accept(message(QUESTION, delivery="Ev-dead"))
    await asyncio.wait_for(hung.wait(), 30)
    killed = _task_of("Ev-dead")
    killed.cancel()  # the process is gone: nothing settles the delivery
    await asyncio.gather(killed, return_exceptions=True)
    assert (await _row(db, "Ev-dead"))["status"] == "claimed"
    # the platform's redelivery is acknowledged: the message is already the core's job
    assert (await live.core.accept(message(QUESTION, delivery="Ev-dead"))).stored is False

    live.core.inbox.open()
    await _until_status(db, "Ev-dead", "done")
    (resumed,) = live_screen.deliveries
    assert resumed.posted == [{"message_id": 42}]  # the renderer replaces it, never reposts
    assert resumed.attempt == 2 and resumed.late is late
    (final,) = live_screen.finals()
    assert "1,300 dollars" in final.text
    assert final.text.startswith(say("inbox:late", "en")) is late
    assert dying_screen.finals() == []
    await asyncio.sleep(1.5)  # past another lease and many sweeps: still answered once
    assert len(live_screen.deliveries) == 1 and len(live_screen.finals()) == 1
    row = await _row(db, "Ev-dead")
    assert row["payload"] is None and row["attempts"] == 2


async def test_a_running_turn_keeps_its_message_while_it_runs_longer_than_the_lease(
    new_worker: NewWorker, db: Database
) -> None:
    go = asyncio.Event()

    async def slow(delivery: Delivery, event: Outbound) -> None:
        if isinstance(event, Progress):
            await go.wait()

    screen, other = Screen(slow), Screen()
    # a lease of 1.2 s is renewed every 0.4 s: a loaded CI machine's stalls stay under
    # the 0.8 s of slack (with 0.6 s, a 0.4 s stall lost it to the other worker)
    busy = await new_worker(screen, DELIVERY_LEASE_SECONDS=1.2)
    busy.core.inbox.open()  # renews the leases of what it runs
    idle = await new_worker(other, DELIVERY_LEASE_SECONDS=1.2, INBOX_SWEEP_SECONDS=0.1)
    idle.core.inbox.open()
    assert await busy.core.accept(message(QUESTION, delivery="Ev-slow"))
    await asyncio.sleep(3.8)  # over three leases
    go.set()
    await _until_status(db, "Ev-slow", "done")
    assert other.deliveries == [] and len(screen.finals()) == 1


async def test_a_failing_renderer_is_retried_then_failed_with_its_reason(
    new_worker: NewWorker, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbox_mod, "RETRY_AFTER_S", 0.05)

    async def broken(delivery: Delivery, event: Outbound) -> None:
        del event
        # "Ev-flaky" shows its third attempt; "Ev-broken" never shows anything
        if delivery.message.delivery_id == "Ev-broken" or delivery.attempt < 3:
            raise RuntimeError(f"screen broke on attempt {delivery.attempt}")

    screen = Screen(broken)
    worker = await new_worker(screen, INBOX_SWEEP_SECONDS=0.05)
    worker.core.inbox.open()
    assert await worker.core.accept(message(QUESTION, delivery="Ev-broken", conv="C-broken"))
    assert await worker.core.accept(message(QUESTION, delivery="Ev-flaky", conv="C-flaky"))
    await _until_status(db, "Ev-flaky", "done")
    await _until_status(db, "Ev-broken", "failed")

    def attempts(delivery_id: str) -> list[int]:  # the renderer is called once an attempt
        return [d.attempt for d in screen.deliveries if d.message.delivery_id == delivery_id]

    assert attempts("Ev-flaky") == [1, 2, 3] and len(screen.finals("Ev-flaky")) == 1
    assert attempts("Ev-broken") == list(range(1, inbox_mod.MAX_ATTEMPTS + 1))
    row = await _row(db, "Ev-broken")
    assert row["attempts"] == inbox_mod.MAX_ATTEMPTS
    # the error's type only: its text may quote the message, and the row is kept for days
    assert row["last_error"] == "RuntimeError"
    assert row["payload"] is None
    await asyncio.sleep(0.5)  # failed for good: no more attempts
    assert len(attempts("Ev-broken")) == inbox_mod.MAX_ATTEMPTS


async def test_waiting_turns_run_in_arrival_order_however_slowly_their_note_is_shown(
    new_worker: NewWorker, db: Database
) -> None:
    go = asyncio.Event()
    started: list[str] = []

    async def slow_platform(delivery: Delivery, event: Outbound) -> None:
        name = delivery.message.delivery_id
        if isinstance(event, Queued) and name == "Ev-second":
            await asyncio.sleep(1.0)  # a slow platform call showing "next in line"
        if isinstance(event, Progress) and event.step == "received":
            started.append(name)
            if name == "Ev-first":
                await go.wait()  # the first turn runs, holding the conversation

    screen = Screen(slow_platform)
    worker = await new_worker(screen)
    assert await worker.core.accept(message(QUESTION, delivery="Ev-first", conv="C-line"))
    await until(lambda: started == ["Ev-first"], 30)
    assert await worker.core.accept(message(QUESTION, delivery="Ev-second", conv="C-line"))
    await asyncio.sleep(0.1)
    assert await worker.core.accept(message(QUESTION, delivery="Ev-third", conv="C-line"))
    await asyncio.sleep(0.2)  # the third's note is shown long before the second's
    assert isinstance(screen.shown["Ev-third"][0], Queued)
    go.set()
    await _until_status(db, "Ev-third", "done")
    assert started == ["Ev-first", "Ev-second", "Ev-third"]


async def test_a_drain_lets_waiting_messages_go_at_once_and_finishes_the_running_one(
    new_worker: NewWorker, db: Database
) -> None:
    go = asyncio.Event()
    running = asyncio.Event()

    async def hold_the_first(delivery: Delivery, event: Outbound) -> None:
        if delivery.message.delivery_id == "Ev-run" and isinstance(event, Progress):
            running.set()
            await go.wait()  # the turn runs (holding the conversation) while the drain starts

    draining_screen, next_screen = Screen(hold_the_first), Screen()
    # a long lease: the next worker can only have the waiting message because it was let go
    old = await new_worker(draining_screen, DELIVERY_LEASE_SECONDS=60)
    old.core.inbox.open()
    new = await new_worker(next_screen, DELIVERY_LEASE_SECONDS=60, INBOX_SWEEP_SECONDS=0.1)
    assert await old.core.accept(message(QUESTION, delivery="Ev-run", conv="C-drain"))
    await asyncio.wait_for(running.wait(), 30)
    # same conversation: waits for the running turn's lock
    assert await old.core.accept(
        message("Where do adults renew?", delivery="Ev-wait", conv="C-drain")
    )
    await asyncio.sleep(0.2)

    drain = asyncio.create_task(old.core.drain(30))
    begun = time.monotonic()
    await until(lambda: old.core.closing, 5)
    with pytest.raises(ShuttingDownError):
        await old.core.accept(message("anyone there?", delivery="Ev-late"))
    while not (await _row(db, "Ev-wait"))["expired"]:
        assert time.monotonic() - begun < 1.0, "not let go"  # at once, not after the lease
        await asyncio.sleep(0.02)
    new.core.inbox.open()
    await until(lambda: len(next_screen.deliveries) == 1, 5)  # the next worker took it
    assert not drain.done()  # the running turn is still running, and was not cut short
    # typing and progress show only where a turn runs: not for the message let go, and not
    # yet on the next worker (that turn waits for the conversation, held by the running
    # one); while it waited, the most it said was that it is in line (Queued)
    assert all(isinstance(e, Queued) for e in draining_screen.shown["Ev-wait"])
    assert next_screen.shown["Ev-wait"] == []  # (another worker's lock: no note either)

    go.set()
    assert await drain is True
    assert (await _row(db, "Ev-run"))["status"] == "done"
    await _until_status(db, "Ev-wait", "done")
    assert len(next_screen.finals("Ev-wait")) == 1 and draining_screen.finals("Ev-wait") == []
    assert len(draining_screen.finals("Ev-run")) == 1 and next_screen.shown["Ev-run"] == []
    async with db.sessions() as session:
        refused = (
            await session.execute(
                text("SELECT count(*) FROM processed_events WHERE event_id = 'Ev-late'")
            )
        ).scalar_one()
    assert refused == 0  # not stored: the platform redelivers it to a live worker


async def _clear_of_a_minute_boundary(db: Database, needed_s: float = 20) -> None:
    """Rate-limit windows are calendar minutes (Postgres's clock): start a test in one."""
    async with db.sessions() as session:
        second = float(
            (await session.execute(text("SELECT EXTRACT(SECOND FROM now())"))).scalar_one()
        )
    if second > 60 - needed_s:
        await asyncio.sleep(60.5 - second)


async def test_a_flood_gets_one_notice_per_window_and_buttons_count_too(
    new_worker: NewWorker, db: Database
) -> None:
    await _clear_of_a_minute_boundary(db)
    screen = Screen()
    worker = await new_worker(screen, RATE_LIMIT_PER_MINUTE=2)
    core = worker.core
    flood = [f"Ev-flood-{n}" for n in range(5)]
    accepted = [
        await core.accept(message(QUESTION, delivery=d, user="U-flood", conv=f"F{n}"))
        for n, d in enumerate(flood)
    ]
    # all stored; the third on over the limit, and the adapter is told so
    assert [(a.stored, a.limited) for a in accepted] == [(True, False)] * 2 + [(True, True)] * 3
    for delivery in flood:
        await _until_status(db, delivery, "done")
    shown = [screen.shown[d] for d in flood]
    assert [len(only_finals) for only_finals in (screen.finals(d) for d in flood)] == [
        1,
        1,
        0,
        0,
        0,
    ]
    notices = [e for events in shown[2:] for e in events]
    assert len(notices) == 1  # one notice in the window; the other two: silence
    (notice,) = notices
    assert isinstance(notice, Reply) and notice.kind == "rate_limited"
    assert notice.text == say("rate_limited", "en", limit=2)
    # a button pressed by the flooding user does not run, and is not told again
    pressed = await core.first_delivery("slack", "Btn-flood", user_id="U-flood")
    assert not pressed and pressed.notice is None

    # a user who only presses buttons: two run, the third is refused with the notice, once
    presses = [
        await core.first_delivery("slack", f"Btn-{n}", user_id="U-buttons") for n in range(4)
    ]
    assert [bool(p) for p in presses] == [True, True, False, False]
    assert presses[2].notice == say("rate_limited", "en", limit=2)
    assert presses[3].notice is None
    # a redelivered button is a duplicate, not counted
    assert not await core.first_delivery("slack", "Btn-0", user_id="U-buttons")
    # and their next message is over the limit too, silently (they were told)
    assert await core.accept(message(QUESTION, delivery="Ev-after", user="U-buttons"))
    await _until_status(db, "Ev-after", "done")
    assert screen.shown["Ev-after"] == []


async def test_a_message_whose_every_attempt_killed_its_worker_is_given_up(
    new_worker: NewWorker, db: Database
) -> None:
    screen = Screen()
    worker = await new_worker(screen)
    payloads = {
        "Ev-poison": message("a message that crashes workers", delivery="Ev-poison"),
        "Ev-last-try": message(QUESTION, delivery="Ev-last-try", conv="C-last"),
    }
    async with db.transaction() as session:  # workers took them and died, attempt after attempt
        for delivery_id, asked in payloads.items():
            await inbox_repo.accept(session, "slack", delivery_id, encode(asked), 30)
        await session.execute(
            text(
                "UPDATE processed_events SET lease_until = now() - interval '1 s',"
                " attempts = CASE event_id WHEN 'Ev-poison' THEN :max ELSE :max - 1 END"
            ),
            {"max": inbox_mod.MAX_ATTEMPTS},
        )
    assert await worker.core.inbox.sweep() == 1
    await _until_status(db, "Ev-last-try", "done")  # one attempt was left: answered
    assert len(screen.finals("Ev-last-try")) == 1
    row = await _row(db, "Ev-poison")
    assert row["status"] == "failed" and row["last_error"] == inbox_repo.GAVE_UP
    assert row["payload"] is None and "Ev-poison" not in screen.shown
    assert await worker.core.inbox.sweep() == 0


async def test_a_pending_audience_is_learned_by_the_worker_that_answers_from_what_was_stored(
    new_worker: NewWorker, db: Database
) -> None:
    # an adapter acknowledged before looking the sender up; the message waits in the inbox
    # and another worker answers it: its resolver gets the stored facts, and the turn (and
    # the renderer) read the audience it learned
    pending = Audience(channel="C7", shared_channel=True, pending=True, sender_team="T1")
    parked = await new_worker(Screen())
    parked.core.begin_drain()
    asked = message(QUESTION, delivery="Ev-pending", audience=dataclasses.replace(pending))
    assert await parked.core.accept(asked, redelivered=False)  # stored for the next worker

    seen: list[Audience] = []

    async def resolve(stored: InboundMessage) -> Audience:
        seen.append(stored.audience)
        return Audience(guest=False, channel=stored.audience.channel, verified=True)

    screen = Screen()
    live = await new_worker(screen, INBOX_SWEEP_SECONDS=0.1)
    live.core.register_audience_resolver("slack", resolve)
    live.core.inbox.open()
    await _until_status(db, "Ev-pending", "done")
    assert seen == [pending]
    (delivery,) = screen.deliveries
    assert delivery.message.audience == Audience(guest=False, channel="C7", verified=True)


async def test_a_pending_audience_without_a_resolver_stays_a_guests(new_worker: NewWorker) -> None:
    screen = Screen()
    worker = await new_worker(screen)
    worker.core.inbox.open()
    pending = Audience(channel="C7", pending=True)
    assert await worker.core.accept(message(QUESTION, delivery="Ev-alone", audience=pending))
    deadline = time.monotonic() + 30
    while not screen.finals() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    (delivery,) = screen.deliveries
    assert delivery.message.audience == pending  # a guest's; another attempt may learn it
    assert not delivery.message.is_admin and screen.finals()


async def test_a_learned_admin_is_spared_the_limit_counted_as_a_guest_and_it_is_stored(
    new_worker: NewWorker, db: Database
) -> None:
    # two messages from a sender not looked up yet, over a limit of one as a guest's;
    # learned to be an admin, neither is limited nor counted, and what was learned is
    # stored with the messages for whoever resumes them
    await window_with_time_left(15)
    screen, _, held = _held_screen()
    looked_up: list[str] = []
    stored_as_guest = asyncio.Event()  # the test has seen the limit mark: learn now

    async def resolve(stored: InboundMessage) -> Audience:
        await stored_as_guest.wait()
        looked_up.append(stored.delivery_id)
        return Audience(guest=False, channel="C7", verified=True)

    worker = await new_worker(screen, RATE_LIMIT_PER_MINUTE=1, SLACK_ADMIN_USER_IDS="U-ADMIN")
    worker.core.register_audience_resolver("slack", resolve)
    worker.core.inbox.open()
    pending = Audience(channel="C7", pending=True)
    for n in (1, 2):
        asked = message(QUESTION, user="U-ADMIN", delivery=f"Ev-admin{n}", audience=pending)
        assert await worker.core.accept(asked)
    assert (await _row(db, "Ev-admin2"))["payload"]["limited"] is True  # as a guest's
    stored_as_guest.set()
    deadline = time.monotonic() + 30
    while len(looked_up) < 2 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    for n in (1, 2):
        stored = (await _row(db, f"Ev-admin{n}"))["payload"]
        assert "limited" not in stored
        assert stored["audience"]["pending"] is False and stored["audience"]["guest"] is False
    assert await _rate_count(db, "U-ADMIN") == 0
    held.set()
    assert sorted(looked_up) == ["Ev-admin1", "Ev-admin2"]


async def test_a_learned_guest_is_stored_with_the_message_and_stays_counted(
    new_worker: NewWorker, db: Database
) -> None:
    # learned to be a verified member (no admin, no staff reply): what was learned is
    # stored with the message for whoever resumes it, and its count in the limit stands
    await window_with_time_left(15)
    looked_up: list[str] = []

    async def resolve(stored: InboundMessage) -> Audience:
        looked_up.append(stored.delivery_id)
        return Audience(guest=False, channel="C7", verified=True, sender_team="T1")

    screen, showing, held = _held_screen()  # showing: its turn began, after the store
    worker = await new_worker(screen, RATE_LIMIT_PER_MINUTE=5)
    worker.core.register_audience_resolver("slack", resolve)
    pending = Audience(channel="C7", pending=True)
    asked = message(QUESTION, user="U-MEMBER", delivery="Ev-member", audience=pending)
    assert await worker.core.accept(asked)
    await asyncio.wait_for(showing.wait(), 30)
    stored = (await _row(db, "Ev-member"))["payload"]
    assert "limited" not in stored
    assert stored["audience"]["pending"] is False and stored["audience"]["verified"] is True
    assert stored["audience"]["sender_team"] == "T1"
    assert await _rate_count(db, "U-MEMBER") == 1
    held.set()
    await until(lambda: bool(screen.finals("Ev-member")))
    assert looked_up == ["Ev-member"]


async def test_a_listed_admin_learned_to_be_a_guest_stays_limited_and_counted(
    new_worker: NewWorker, db: Database
) -> None:
    # a listed admin's id, but the lookup says a guest (a guest is never an admin): the
    # second message, over a limit of one, stays limited with what was learned stored,
    # and both stay counted
    await window_with_time_left(15)
    screen, _, held = _held_screen()
    looked_up: list[str] = []

    async def resolve(stored: InboundMessage) -> Audience:
        looked_up.append(stored.delivery_id)
        return Audience(guest=True, channel="C7", verified=True, sender_team="T-OTHER")

    worker = await new_worker(screen, RATE_LIMIT_PER_MINUTE=1, SLACK_ADMIN_USER_IDS="U-GUEST")
    worker.core.register_audience_resolver("slack", resolve)
    pending = Audience(channel="C7", pending=True)
    for n in (1, 2):
        asked = message(QUESTION, user="U-GUEST", delivery=f"Ev-guest{n}", audience=pending)
        assert await worker.core.accept(asked)

    async def learned(delivery_id: str) -> dict[str, Any] | None:
        payload = (await _row(db, delivery_id))["payload"]
        return payload if payload and payload["audience"]["pending"] is False else None

    deadline = time.monotonic() + 30
    while not (await learned("Ev-guest1") and await learned("Ev-guest2")):
        assert time.monotonic() < deadline, "what was learned was not stored"
        await asyncio.sleep(0.05)
    first, second = await learned("Ev-guest1"), await learned("Ev-guest2")
    assert first is not None and second is not None
    assert "limited" not in first and second["limited"] is True
    assert second["audience"]["guest"] is True and second["audience"]["sender_team"] == "T-OTHER"
    assert await _rate_count(db, "U-GUEST") == 2
    held.set()
    assert sorted(looked_up) == ["Ev-guest1", "Ev-guest2"]


async def test_a_flood_from_a_sender_not_looked_up_yet_costs_no_lookups(
    new_worker: NewWorker,
) -> None:
    # over the limit as a guest's and no admin or case reply that learning could spare:
    # the notice needs no audience, so only the message within the limit is looked up
    await window_with_time_left(15)
    looked_up: list[str] = []

    async def resolve(stored: InboundMessage) -> Audience:
        looked_up.append(stored.delivery_id)
        return Audience(guest=False, channel="C7", verified=True)

    screen = Screen()
    worker = await new_worker(screen, RATE_LIMIT_PER_MINUTE=1)
    worker.core.register_audience_resolver("slack", resolve)
    worker.core.inbox.open()
    pending = Audience(channel="C7", pending=True)
    for n in (1, 2, 3):
        asked = message(QUESTION, user="U9", conv=f"C9{n}", delivery=f"Ev-flood{n}")
        assert await worker.core.accept(dataclasses.replace(asked, audience=pending))
    await until(lambda: len(screen.deliveries) == 3 and bool(screen.finals("Ev-flood1")))
    await asyncio.sleep(0.5)
    assert looked_up == ["Ev-flood1"]
    notices = [e for d in ("Ev-flood2", "Ev-flood3") for e in screen.shown[d]]
    assert [e.kind for e in notices if isinstance(e, Reply)] == ["rate_limited"]


async def test_a_conversations_messages_keep_their_order_however_long_learning_who_sent_them_takes(
    new_worker: NewWorker,
) -> None:
    # two people not looked up yet write in one channel, the first one's lookup slower:
    # the turns still start in arrival order; another conversation does not wait for it
    started: list[str] = []

    async def note_start(delivery: Delivery, event: Outbound) -> None:
        if isinstance(event, Progress) and event.step == "received":
            started.append(delivery.message.delivery_id)

    async def resolve(stored: InboundMessage) -> Audience:
        await asyncio.sleep(0.8 if stored.user_id == "U-slow" else 0.0)
        return Audience(guest=False, channel=stored.audience.channel, verified=True)

    screen = Screen(note_start)
    worker = await new_worker(screen)
    worker.core.register_audience_resolver("slack", resolve)
    worker.core.inbox.open()
    pending = Audience(channel="C-room", pending=True)
    for user, conv, delivery in (
        ("U-slow", "C-room", "Ev-asked-first"),
        ("U-fast", "C-room", "Ev-asked-second"),
        ("U-fast", "C-elsewhere", "Ev-elsewhere"),
    ):
        asked = message(QUESTION, user=user, conv=conv, delivery=delivery, audience=pending)
        assert await worker.core.accept(asked)
    await until(lambda: len(screen.finals()) == 3, 60)
    assert started.index("Ev-asked-first") < started.index("Ev-asked-second")
    assert started[0] == "Ev-elsewhere"  # not held behind the slow lookup


async def test_a_turn_begins_once_the_messages_arriving_with_it_are_acknowledged(
    new_worker: NewWorker, db: Database
) -> None:
    # two messages arrive together and the second one's inbox write is slow (here: another
    # transaction holds its row); the first one's turn (its sender's lookup first) waits
    # for that acknowledgement, so an arrival burst is acknowledged before the turns it
    # starts take the loop, but never longer than ACK_FIRST_S
    pending = Audience(channel="C7", pending=True)
    looked_up: list[float] = []

    async def resolve(stored: InboundMessage) -> Audience:
        looked_up.append(time.monotonic())
        return Audience(guest=False, channel="C7", verified=True)

    screen = Screen()
    worker = await new_worker(screen)
    worker.core.register_audience_resolver("slack", resolve)
    blocker = await db.engine.connect()
    try:
        transaction = await blocker.begin()
        await blocker.execute(
            text(
                "INSERT INTO processed_events (platform, event_id, status)"
                " VALUES ('slack', 'Ev-slow', 'claimed')"
            )
        )
        slow = asyncio.create_task(
            worker.core.accept(message(QUESTION, delivery="Ev-slow", audience=pending))
        )
        await _until_waiting_for_a_lock(db)
        accepted = time.monotonic()
        assert await worker.core.accept(message(QUESTION, delivery="Ev-first", audience=pending))
        await asyncio.sleep(dispatcher_mod.ACK_FIRST_S / 2)
        assert not looked_up  # the slow acknowledgement is still being prepared
        await until(lambda: bool(looked_up))  # ...but not for ever
        waited = looked_up[0] - accepted
        assert dispatcher_mod.ACK_FIRST_S * 0.8 <= waited < dispatcher_mod.ACK_FIRST_S + 2
        assert not slow.done()
        await transaction.rollback()
    finally:
        await blocker.close()
    assert await asyncio.wait_for(slow, 10)
    await until(lambda: len(screen.finals()) == 2)


async def _until_waiting_for_a_lock(db: Database) -> None:
    """Wait until some statement on the database waits for a lock another one holds."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        async with db.sessions() as session:
            waiting = await session.execute(text("SELECT count(*) FROM pg_locks WHERE NOT granted"))
            if waiting.scalar_one():
                return
        await asyncio.sleep(0.02)
    raise AssertionError("no statement waited for a lock")
