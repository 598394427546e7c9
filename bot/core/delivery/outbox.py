"""The outbox worker: sends that must arrive, paced per chat, retried off the turn.

A turn (or an upload job) enqueues its final messages and is done: the slot
and the conversation's lock are free before anything is posted. Here, each
chat's sends go out in order, no faster than the platform allows for that
chat (the adapter says how fast), and a 429, a 5xx or a network error puts
only that chat's send back with `retry_after` or a growing backoff, never the
others. After OUTBOX_MAX_ATTEMPTS the send is marked failed with its reason
(shown by `ragbot traces` on the turn it belonged to), never marked done.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.settings import Settings
from storage.db import Database
from storage.repositories import outbox as outbox_repo
from storage.repositories.outbox import Pending

logger = logging.getLogger(__name__)
LEASE_S = 60.0  # a send taken by a worker that died is taken again after this
MAX_BACKOFF_S = 60.0
MAX_RETRY_AFTER_S = 300.0  # a platform asking for longer is asked again then
SEND_TIMEOUT_S = LEASE_S / 2
POLL_S = 1.0  # also woken at once by an enqueue in this process

__all__ = ["Channel", "OutboxWorker", "Pending", "RetryLater", "Undeliverable"]


class RetryLater(Exception):
    """The platform could not take the send now (429, 5xx, network): try again.

    `after_s` is the platform's `retry_after` when it gave one.
    """

    def __init__(self, reason: str, after_s: float | None = None) -> None:
        super().__init__(reason)
        self.after_s = after_s


class Undeliverable(Exception):
    """The send can never succeed (the chat is gone, the bot was blocked)."""


@dataclass(frozen=True)
class Channel:
    """How one platform sends: `send` posts one outbox row and returns what to keep
    (a message id), `gap` is the least time between two sends to one chat."""

    send: Callable[[Pending], Awaitable[dict[str, Any] | None]]
    gap: Callable[[str], float]


AfterSent = Callable[[AsyncSession, Pending, dict[str, Any] | None], Awaitable[None]]
AfterFailed = Callable[[AsyncSession, Pending, str], Awaitable[None]]


class OutboxWorker:
    """Stores sends and delivers them, one task per chat with something due."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self._max_attempts = max(1, settings.outbox_max_attempts)
        # sends at once: each borrows a pooled connection to settle, so not with the turns
        self._capacity = max(4, min(16, settings.max_concurrent_turns * 2))
        self.channels: dict[str, Channel] = {}
        self._next_ok: dict[tuple[str, str], float] = {}  # (platform, chat) → monotonic time
        self._sending: dict[int, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._stopping = False
        # called in the transaction that marks a send done, with what the send returned
        # (the hand-off desk remembers the staff-room messages a staff reply may answer)
        self.after_sent: list[AfterSent] = []
        # called in the transaction that marks a send failed for good, with the reason
        self.after_failed: list[AfterFailed] = []

    def wake(self) -> None:
        """Look for due sends now (rows were enqueued in a caller's own transaction)."""
        self._wake.set()

    def register(self, platform: str, channel: Channel) -> None:
        """Deliver `platform`'s sends from this worker."""
        self.channels[platform] = channel

    async def enqueue(
        self,
        platform: str,
        chat: str,
        key: str,
        payload: dict[str, Any],
        trace_id: str | None = None,
    ) -> bool:
        """Store a send (once per `key`) and wake the worker; False when already stored."""
        async with self._db.autocommit() as session:  # each of these is one statement
            stored = await outbox_repo.enqueue(session, platform, chat, key, payload, trace_id)
        self._wake.set()
        return stored

    def open(self) -> None:
        """Start delivering."""
        if self._loop is None:
            self._stopping = False
            self._loop = asyncio.create_task(self._run(), name="outbox")

    async def _run(self) -> None:
        while not self._stopping:
            # cleared before the round: a send finishing (or an enqueue) while the round
            # reads the table wakes the next round at once, not after a POLL_S idle wait
            self._wake.clear()
            try:
                await self.deliver_due()
            except Exception as exc:  # a database blip: try again shortly
                logger.warning("outbox round failed: %s", type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_S)

    async def deliver_due(self) -> int:
        """Take the due head of each chat's queue and start sending; how many were taken."""
        free = self._capacity - len(self._sending)
        if free <= 0 or not self.channels:
            return 0
        async with self._db.autocommit() as session:
            rows = await outbox_repo.take_due(
                session, sorted(self.channels), LEASE_S, free, list(self._sending)
            )
        for row in rows:
            task = asyncio.create_task(self._deliver(row), name=f"outbox {row.id}")
            self._sending[row.id] = task
            task.add_done_callback(functools.partial(self._forget, row.id))
        return len(rows)

    def _forget(self, row_id: int, _: asyncio.Task[None]) -> None:
        self._sending.pop(row_id, None)

    async def _deliver(self, row: Pending) -> None:
        try:
            await self._deliver_once(row)
        except Exception as exc:  # the database failed around the send: its lease runs out
            logger.warning("outbox send %s not settled: %s", row.key, type(exc).__name__)

    async def _deliver_once(self, row: Pending) -> None:
        if row.attempts >= self._max_attempts:  # taken again and again: its workers died
            await self._fail(row, f"no attempt settled (after {row.attempts} attempts)")
            return
        channel = self.channels[row.platform]
        where = (row.platform, row.chat)
        wait = self._next_ok.get(where, 0.0) - time.monotonic()
        if wait > 0:  # the chat's pace: only this chat waits
            await asyncio.sleep(wait)
        try:
            # bounded: a hung send must settle well before its lease lets another worker
            # take the row (which would send it twice)
            async with asyncio.timeout(SEND_TIMEOUT_S):
                result = await channel.send(row)
        except RetryLater as exc:
            await self._retry(row, str(exc) or "retry", exc.after_s)
            return
        except Undeliverable as exc:
            await self._fail(row, str(exc) or type(exc).__name__)
            return
        except Exception as exc:  # unknown: retried like a network error, up to the cap
            # the type only: an error's text may quote the message being sent
            logger.warning("outbox send %s failed: %s", row.key, type(exc).__name__)
            await self._retry(row, type(exc).__name__, None)
            return
        finally:
            self._next_ok[where] = max(
                self._next_ok.get(where, 0.0), time.monotonic() + channel.gap(row.chat)
            )
        for attempt in range(3):  # sent: recording it must not fail on a blip (a resend)
            try:
                async with self._db.transaction() as session:
                    await outbox_repo.sent(session, row.id, result)
                    for hook in self.after_sent:
                        await hook(session, row, result)
                break
            except Exception:
                if attempt == 2:
                    raise
                await asyncio.sleep(0.5 * 2**attempt)
        self._wake.set()  # the chat's next send may be due

    async def _retry(self, row: Pending, reason: str, after_s: float | None) -> None:
        attempts = row.attempts + 1
        if attempts >= self._max_attempts:
            await self._fail(row, f"{reason} (after {attempts} attempts)")
            return
        if after_s is not None:
            after = min(max(after_s, 0.0), MAX_RETRY_AFTER_S)
        else:
            after = min(2.0**attempts, MAX_BACKOFF_S)
        where = (row.platform, row.chat)
        self._next_ok[where] = max(self._next_ok.get(where, 0.0), time.monotonic() + after)
        logger.info("send %s to %s: %s; again in %.1f s", row.key, row.chat, reason, after)
        async with self._db.autocommit() as session:
            await outbox_repo.postpone(session, row.id, after, reason)
        # due again exactly then: a round at that moment, not at the next idle poll
        asyncio.get_running_loop().call_later(after, self._wake.set)

    async def _fail(self, row: Pending, reason: str) -> None:
        logger.error("send %s to %s failed for good: %s", row.key, row.chat, reason)
        async with self._db.transaction() as session:
            await outbox_repo.fail(session, row.id, reason)
            for hook in self.after_failed:
                await hook(session, row, reason)

    async def stop(self, timeout: float) -> None:
        """Send what is due (up to `timeout`), then stop and let go of the rest.

        Sends waiting for a retry stay in the outbox: the next worker sends them.
        """
        deadline = time.monotonic() + timeout
        if self._loop is not None:
            # let the round under way end rather than cancel it: cancelled after take_due
            # committed, the rows it took would stay leased (LEASE_S) with no task sending them
            self._stopping = True
            self._wake.set()
            await asyncio.wait([self._loop], timeout=timeout)
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
            self._loop = None
        with contextlib.suppress(Exception):  # the database is gone: the rows stay pending
            while time.monotonic() < deadline:
                taken = await self.deliver_due()
                tasks = list(self._sending.values())
                if not taken and not tasks:
                    break
                if tasks:
                    await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
        left = [rid for rid, task in self._sending.items() if not task.done()]
        for task in self._sending.values():
            task.cancel()
        if left:
            with contextlib.suppress(Exception):
                async with self._db.autocommit() as session:
                    await outbox_repo.release(session, left)
