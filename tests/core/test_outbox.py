"""The outbox against the real embedded Postgres: sends that must arrive, paced per chat,
retried off the turn, failed with a reason; and `/healthz` telling how the queues stand.

The platform here is an in-process sender (the adapter's `Channel.send`), scripted to
answer 429s and errors per send; what is measured is what a user would notice: when
each chat's message arrives, how often, and in which order.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text

import bot.core.delivery.outbox as outbox_mod
from bot.core.admin.audit import Actor
from bot.core.delivery.http import QueueDetail, build_app
from bot.core.delivery.outbox import Channel, OutboxWorker, Pending, RetryLater, Undeliverable
from bot.core.messages import FinalAnswer
from storage.db import Database, head_revision
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from storage.repositories import inbox as inbox_repo
from storage.repositories import outbox as outbox_repo
from tests.support.core_fixtures import (
    DOCS,
    close_worker,
    collect,
    make_worker,
    message,
    only,
    settings_for_tests,
    until,
)

MAX_ATTEMPTS = 3


class Platform:
    """A platform's sending side: what arrived in which chat and when; scripted failures.

    `script[key]` lists what the next sends of `key` raise (then they succeed);
    `broken[key]` is raised by every send of `key`.
    """

    def __init__(self, gap: float = 0.0) -> None:
        self.gap = gap
        self.arrived: list[tuple[float, str, str]] = []  # (monotonic time, chat, key)
        self.calls: Counter[str] = Counter()
        self.script: dict[str, list[Exception]] = {}
        self.broken: dict[str, Exception] = {}

    async def send(self, row: Pending) -> dict[str, Any] | None:
        self.calls[row.key] += 1
        if row.key in self.broken:
            raise self.broken[row.key]
        if self.script.get(row.key):
            raise self.script[row.key].pop(0)
        self.arrived.append((time.monotonic(), row.chat, row.key))
        return {"message_id": len(self.arrived)}

    def channel(self) -> Channel:
        return Channel(send=self.send, gap=lambda chat: self.gap)

    def when(self, key: str) -> float:
        (at,) = [t for t, _, k in self.arrived if k == key]
        return at

    def keys(self, chat: str) -> list[str]:
        return [k for _, c, k in self.arrived if c == chat]


@pytest.fixture
async def outboxes(db: Database) -> AsyncIterator[list[OutboxWorker]]:
    """Outbox workers made by the test (stopped at the end)."""
    made: list[OutboxWorker] = []
    yield made
    for worker in made:
        await worker.stop(1)


def _open(db: Database, outboxes: list[OutboxWorker], platform: Platform) -> OutboxWorker:
    worker = OutboxWorker(db, settings_for_tests(OUTBOX_MAX_ATTEMPTS=MAX_ATTEMPTS))
    worker.register("telegram", platform.channel())
    worker.open()
    outboxes.append(worker)
    return worker


async def _row(db: Database, key: str) -> dict[str, Any]:
    async with db.sessions() as session:
        row = (
            await session.execute(
                text("SELECT status, attempts, last_error, result FROM outbox WHERE key = :key"),
                {"key": key},
            )
        ).one()
    return dict(row._mapping)


async def _until_status(db: Database, key: str, status: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while (await _row(db, key))["status"] != status:
        assert time.monotonic() < deadline, f"{key} never {status}"
        await asyncio.sleep(0.02)


async def test_a_send_enqueued_twice_is_sent_once(
    db: Database, outboxes: list[OutboxWorker]
) -> None:
    platform = Platform()
    first = _open(db, outboxes, platform)
    second = _open(db, outboxes, platform)  # another worker, sending the same chats
    payload = {"op": "send", "text": "An adult passport renewal costs 1,300 dollars."}
    assert await first.enqueue("telegram", "100", "tg:Ev-1:final:0", payload) is True
    # a resumed turn enqueues the same piece again, on either worker
    assert await second.enqueue("telegram", "100", "tg:Ev-1:final:0", payload) is False
    assert await first.enqueue("telegram", "100", "tg:Ev-1:final:0", payload) is False
    await _until_status(db, "tg:Ev-1:final:0", "done")
    await asyncio.sleep(0.3)
    assert platform.calls["tg:Ev-1:final:0"] == 1 and len(platform.arrived) == 1
    row = await _row(db, "tg:Ev-1:final:0")
    assert row["result"] == {"message_id": 1} and row["attempts"] == 1


async def test_a_send_delivered_after_four_429s_honouring_retry_after(
    db: Database, outboxes: list[OutboxWorker]
) -> None:
    platform = Platform()
    platform.script["final"] = [RetryLater("429 Too Many Requests", after_s=0.2) for _ in range(4)]
    worker = OutboxWorker(db, settings_for_tests())  # OUTBOX_MAX_ATTEMPTS: the default, 8
    worker.register("telegram", platform.channel())
    worker.open()
    outboxes.append(worker)
    began = time.monotonic()
    assert await worker.enqueue("telegram", "100", "final", {"op": "send"})
    await _until_status(db, "final", "done")
    assert platform.keys("100") == ["final"]  # arrived, once
    assert platform.when("final") - began >= 0.8  # each retry_after waited out
    row = await _row(db, "final")
    assert row["attempts"] == 5 == platform.calls["final"] and row["last_error"] is None


async def test_a_send_that_keeps_failing_is_failed_with_its_reason_on_its_turn(
    db: Database,
    database_url: str,
    embedder: Embedder,
    outboxes: list[OutboxWorker],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(outbox_mod, "MAX_BACKOFF_S", 0.05)  # 5xx backoff, shortened
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode())
    core_worker = await make_worker(
        database_url, embedder, settings_for_tests(OUTBOX_MAX_ATTEMPTS=MAX_ATTEMPTS)
    )
    try:
        events = await collect(
            core_worker.core.handle(message("How much does a passport renewal cost?"))
        )
        (final,) = only(events, FinalAnswer)
        trace_id = final.result.trace_id
        platform = Platform()
        platform.broken["tg:Ev-2:final:0"] = RetryLater("HTTP 502 Bad Gateway")
        platform.broken["tg:Ev-3:final:0"] = Undeliverable("Forbidden: bot was blocked")
        outbox = core_worker.core.outbox
        core_worker.core.register_sender("telegram", platform.channel())
        outbox.open()
        await outbox.enqueue("telegram", "100", "tg:Ev-2:final:0", {"op": "send"}, trace_id)
        await outbox.enqueue("telegram", "300", "tg:Ev-3:final:0", {"op": "send"})
        await _until_status(db, "tg:Ev-2:final:0", "failed")
        await _until_status(db, "tg:Ev-3:final:0", "failed")
        row = await _row(db, "tg:Ev-2:final:0")
        assert row["attempts"] == MAX_ATTEMPTS == platform.calls["tg:Ev-2:final:0"]
        assert row["last_error"] == f"HTTP 502 Bad Gateway (after {MAX_ATTEMPTS} attempts)"
        # a permanent refusal is not retried
        assert platform.calls["tg:Ev-3:final:0"] == 1
        assert (await _row(db, "tg:Ev-3:final:0"))["last_error"] == "Forbidden: bot was blocked"
        await asyncio.sleep(0.3)
        assert platform.calls["tg:Ev-2:final:0"] == MAX_ATTEMPTS  # failed is final

        operator = Actor("cli", "operator", True)
        (turn,) = [
            t for t in await core_worker.core.admin.reports.traces(operator) if t["trace_id"]
        ]
        assert turn["trace_id"] == trace_id
        assert turn["delivery_failed"] == row["last_error"]
        queues = (await core_worker.core.admin.reports.stats(operator))["queues"]
        assert queues["outbox_failed"] == 2 and queues["outbox_pending"] == 0
        await outbox.stop(1)
    finally:
        await core_worker.core.drain(1)
        await close_worker(core_worker)


async def _latency(worker: OutboxWorker, platform: Platform, chat: str, key: str) -> float:
    began = time.monotonic()
    await worker.enqueue("telegram", chat, key, {"op": "send"})
    await until(lambda: key in platform.keys(chat), 10)
    return platform.when(key) - began


async def test_a_chat_held_by_retry_after_does_not_delay_another_chat(
    db: Database, outboxes: list[OutboxWorker]
) -> None:
    platform = Platform()
    worker = _open(db, outboxes, platform)
    alone = await _latency(worker, platform, "200", "B-alone")

    platform.script["A-final"] = [RetryLater("429 Too Many Requests", after_s=6)]
    await worker.enqueue("telegram", "100", "A-final", {"op": "send"})
    await until(lambda: platform.calls["A-final"] == 1, 5)  # chat A is held for 6 s now
    beside = await _latency(worker, platform, "200", "B-beside")
    assert "A-final" not in platform.keys("100")
    print(f"chat B's send alone {alone * 1000:.0f} ms, beside a held chat {beside * 1000:.0f} ms")
    assert beside < alone + 0.5 and beside < 1.0
    row = await _row(db, "A-final")
    assert row["status"] == "pending" and row["last_error"] == "429 Too Many Requests"


async def test_each_chat_is_paced_and_chats_are_sent_in_parallel(
    db: Database, outboxes: list[OutboxWorker]
) -> None:
    gap = 0.6
    platform = Platform(gap=gap)
    worker = _open(db, outboxes, platform)
    for n in range(2):
        for chat in ("100", "200"):
            await worker.enqueue("telegram", chat, f"{chat}:{n}", {"op": "send"})
    await until(lambda: len(platform.arrived) == 4, 10)
    for chat in ("100", "200"):
        assert platform.when(f"{chat}:1") - platform.when(f"{chat}:0") >= gap - 0.02
    # the chats do not wait for each other: the second chat is not one gap behind
    assert abs(platform.when("100:0") - platform.when("200:0")) < gap / 2
    assert abs(platform.when("100:1") - platform.when("200:1")) < gap / 2


async def test_a_chats_sends_arrive_in_order_even_when_one_is_retried(
    db: Database, outboxes: list[OutboxWorker]
) -> None:
    platform = Platform()
    platform.script["Z:1"] = [RetryLater("429", after_s=0.3), RetryLater("502", after_s=0.2)]
    worker = _open(db, outboxes, platform)
    keys = [f"Z:{n}" for n in range(5)]
    for key in keys:
        await worker.enqueue("telegram", "100", key, {"op": "send"})
    await worker.enqueue("telegram", "200", "W:0", {"op": "send"})
    await until(lambda: len(platform.arrived) == 6, 10)
    assert platform.keys("100") == keys
    # the other chat went first, while chat 100 waited for its retry
    assert platform.when("W:0") < platform.when("Z:1")


async def test_healthz_shows_the_queues_and_says_503_while_draining(db: Database) -> None:
    async with db.transaction() as session:
        await inbox_repo.accept(session, "slack", "Ev-waiting", {"text": "hello?"}, 30)
        await session.execute(
            text(
                "UPDATE processed_events SET received_at = now() - interval '40 seconds'"
                " WHERE event_id = 'Ev-waiting'"
            )
        )
        for key in ("due", "retrying", "failed"):
            await outbox_repo.enqueue(session, "telegram", "100", key, {"op": "send"})
        (retrying,) = (
            await session.execute(text("SELECT id FROM outbox WHERE key = 'retrying'"))
        ).scalars()
        (failed,) = (
            await session.execute(text("SELECT id FROM outbox WHERE key = 'failed'"))
        ).scalars()
        await outbox_repo.postpone(session, retrying, 5, "429")
        await outbox_repo.fail(session, failed, "chat not found")
    draining = False
    app = build_app(db, head_revision(), (), lambda: draining)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://ragbot"
    ) as client:
        response = await client.get("/healthz")
        assert response.status_code == 200
        queues = response.json()["queues"]
        assert queues["inbox_depth"] == 1 and queues["inbox_oldest_s"] >= 40
        assert queues["outbox_pending"] == 2 and queues["outbox_retrying"] == 1
        assert queues["outbox_failed"] == 1
        draining = True  # the lifecycle's begin_drain: unhealthy at once
        began = time.monotonic()
        response = await client.get("/healthz")
        assert response.status_code == 503 and response.json()["status"] == "draining"
        assert time.monotonic() - began < 1.0


async def test_healthz_reads_the_queue_figures_at_most_every_few_seconds(db: Database) -> None:
    # a load balancer probing each second must not count the tables each second
    cached, fresh = QueueDetail(ttl_s=60), QueueDetail(ttl_s=0)
    assert (await cached.read(db))["outbox_pending"] == 0  # type: ignore[index]
    async with db.transaction() as session:
        await outbox_repo.enqueue(session, "telegram", "100", "later", {"op": "send"})
    assert (await cached.read(db))["outbox_pending"] == 0  # type: ignore[index]
    assert (await fresh.read(db))["outbox_pending"] == 1  # type: ignore[index]


async def test_a_chats_queue_goes_out_back_to_back_without_waiting_for_the_poll(
    db: Database, outboxes: list[OutboxWorker]
) -> None:
    platform = Platform()
    worker = _open(db, outboxes, platform)
    keys = [f"piece:{n}" for n in range(10)]  # a long answer in ten messages
    for key in keys:
        await worker.enqueue("telegram", "100", key, {"op": "send"})
    began = time.monotonic()
    await until(lambda: len(platform.arrived) == 10, 20)
    took = time.monotonic() - began
    assert platform.keys("100") == keys
    # each send wakes the worker for the next: no idle poll (1 s) between two pieces
    assert took < outbox_mod.POLL_S, took
