"""Running the inbox: every accepted message is answered, once, even across crashes.

An adapter accepts a message (`ServingCore.accept`) before it acknowledges the
platform: the message is stored in Postgres, leased to this worker, and its
turn starts here at once. While it runs, the lease is renewed; a worker that
dies stops renewing, and any worker's sweep takes the message when the lease
has run out and answers it (the adapter's renderer finishes or replaces what
the dead worker had posted: the posted message references are stored as they
are created). A drain lets go of what has not started, so the next worker
takes it without waiting for the lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.core.delivery.arrival_line import ArrivalLine, Place
from bot.core.delivery.envelopes import FileFetcher, decode
from bot.core.messages import InboundMessage, Outbound
from bot.settings import Settings
from bot.telemetry.failures import log_failure
from storage.db import Database
from storage.repositories import inbox as inbox_repo

logger = logging.getLogger(__name__)
LATE_AFTER_S = 30.0  # a message answered later than this gets a short note of the delay
RETRY_AFTER_S = 5.0  # a failed attempt is retried (by any worker) after this, times the attempt
MAX_ATTEMPTS = 5  # then the delivery is failed for good, with its reason
FINISH_TRIES = 4  # marking a delivery done is retried over ~3.5 s before giving up


@dataclass
class Delivery:
    """One accepted message this worker is answering.

    `posted` holds what earlier attempts posted (adapter references, oldest
    first): a renderer continues in those messages rather than posting again.
    `late` is true when the message waited long (a crash, a drain) before this
    attempt: the reply says so. Renderers call `record_posted` as soon as a
    message exists, so an attempt that dies half-way leaves a trail.
    """

    message: InboundMessage
    posted: list[dict[str, Any]] = field(default_factory=list)
    late: bool = False
    attempt: int = 1
    limited: bool = False  # over the sender's rate limit: one notice per window, no answer
    started: bool = False  # the turn began (a turn slot was taken): a drain lets it finish
    # when this worker took the message (time.monotonic): the turn's timings count from it
    taken_at: float = field(default_factory=time.monotonic)
    # its place in its conversation's line on this worker (None: not started by the runner)
    place: Place | None = None
    _record: Callable[[dict[str, Any]], Awaitable[None]] | None = None

    def begin(self) -> None:
        """The work began (a turn holds its slot): a drain lets it finish."""
        self.started = True

    async def reach_front(self) -> None:
        """Wait until the earlier messages of its conversation have gone on."""
        if self.place is not None:
            await self.place.reached()

    def go_on(self) -> None:
        """Its order is kept from here (in the lock queue, or relayed): the next
        message of the conversation may go on."""
        if self.place is not None:
            self.place.leave()

    async def record_posted(self, ref: dict[str, Any]) -> None:
        """Store a reference (JSON) to a message just posted for this delivery."""
        if self._record is not None:
            await self._record(ref)


Renderer = Callable[[Delivery, AsyncIterator[Outbound]], Awaitable[None]]
"""An adapter's way of showing a delivery's events; raising means the attempt failed."""


async def _unanswered(delivery: Delivery) -> None:
    raise RuntimeError(f"no answerer for {delivery.message.delivery_id}: call answer_with")


class InboxRunner:
    """Starts the turns of accepted messages, renews their leases, sweeps for orphans."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        answer: Callable[[Delivery], Awaitable[None]] | None = None,
    ) -> None:
        """`answer` runs one delivery; the intake gives it with `answer_with`."""
        self._db = db
        self._lease = settings.delivery_lease_s
        self._sweep_every = settings.inbox_sweep_s
        self._capacity = max(1, settings.max_concurrent_turns)
        self._answer = answer or _unanswered
        self.renderers: dict[str, Renderer] = {}
        self.fetchers: dict[str, FileFetcher] = {}
        self._running: dict[tuple[str, str], tuple[Delivery, asyncio.Task[None]]] = {}
        self._line = ArrivalLine()
        self._loops: list[asyncio.Task[None]] = []
        self.closing = False
        # this worker's fencing token: only the lease's owner renews or gives it up
        self.owner = uuid.uuid4().hex

    def answer_with(self, answer: Callable[[Delivery], Awaitable[None]]) -> None:
        """Who answers the deliveries started here (the intake, once it is built)."""
        self._answer = answer

    def register(self, platform: str, renderer: Renderer, fetcher: FileFetcher | None) -> None:
        """Let this worker answer `platform`'s messages (and resume other workers' ones)."""
        self.renderers[platform] = renderer
        if fetcher is not None:
            self.fetchers[platform] = fetcher

    @property
    def running(self) -> int:
        """Deliveries this worker is answering (or about to)."""
        return len(self._running)

    def line_up(self, message: InboundMessage) -> Place:
        """A place at the back of the message's conversation line on this worker (taken
        when the message arrives; `start` with it, or `leave` it)."""
        return self._line.join(f"{message.platform}:{message.conversation_key}")

    def start(self, delivery: Delivery) -> None:
        """Answer a delivery this worker holds the lease of, in the background."""
        message = delivery.message
        key = (message.platform, message.delivery_id)
        delivery._record = lambda ref: self._store_posted(message, ref)
        if delivery.place is None:  # taken from the inbox (a sweep): at the back of its line
            delivery.place = self.line_up(message)
        task = asyncio.create_task(self._run(delivery), name=f"delivery {message.delivery_id}")
        self._running[key] = (delivery, task)
        task.add_done_callback(lambda _: self._ended(key, delivery))

    def _ended(self, key: tuple[str, str], delivery: Delivery) -> None:
        # however it ended (cancelled by a drain, even before it ran): the next goes on
        self._running.pop(key, None)
        delivery.go_on()

    async def _run(self, delivery: Delivery) -> None:
        try:
            await self._answer(delivery)
        except Exception as exc:  # the core settles its own failures; this is a last resort
            log_failure(logger, f"delivery {delivery.message.delivery_id} failed", exc)

    async def _store_posted(self, message: InboundMessage, ref: dict[str, Any]) -> None:
        try:
            async with self._db.autocommit() as session:  # each of these is one statement
                await inbox_repo.record_posted(session, message.platform, message.delivery_id, ref)
        except Exception:  # the answer goes on; a resumed turn may post anew
            logger.warning("could not record a posted message of %s", message.delivery_id)

    # --- background loops ----------------------------------------------------------------

    def open(self) -> None:
        """Start renewing leases and sweeping for deliveries whose worker died."""
        if not self._loops:
            self._loops = [
                asyncio.create_task(self._renew_loop(), name="inbox renew"),
                asyncio.create_task(self._sweep_loop(), name="inbox sweep"),
            ]

    async def _renew_loop(self) -> None:
        while True:
            await asyncio.sleep(self._lease / 3)
            by_platform: dict[str, list[str]] = {}
            for platform, delivery_id in list(self._running):
                by_platform.setdefault(platform, []).append(delivery_id)
            kept: set[tuple[str, str]] = set()
            try:
                async with self._db.transaction() as session:
                    for platform, ids in by_platform.items():
                        renewed = await inbox_repo.renew(
                            session, platform, ids, self._lease, self.owner
                        )
                        kept.update((platform, i) for i in renewed)
            except Exception as exc:  # a database blip: the next round renews
                logger.warning("could not renew inbox leases: %s", type(exc).__name__)
                continue
            self._stop_lost(by_platform, kept)

    def _stop_lost(self, asked: dict[str, list[str]], kept: set[tuple[str, str]]) -> None:
        """Stop answering what another worker took over (this one was cut off too long):
        two workers must never both answer one message."""
        for platform, ids in asked.items():
            for delivery_id in ids:
                key = (platform, delivery_id)
                entry = self._running.get(key)
                if key not in kept and entry is not None:
                    logger.warning("lease of %s/%s lost: stopping here", platform, delivery_id)
                    entry[1].cancel()

    async def _sweep_loop(self) -> None:
        while not self.closing:
            try:
                await self.sweep()
            except Exception as exc:
                logger.warning("inbox sweep failed: %s", type(exc).__name__)
            await asyncio.sleep(self._sweep_every)

    async def sweep(self) -> int:
        """Take and start deliveries whose lease ran out; how many were taken."""
        free = self._capacity - len(self._running)
        if self.closing or free <= 0 or not self.renderers:
            return 0
        # a transaction: a drain cancelling the sweep mid-statement rolls its leases back
        # (in autocommit they would stand, with no task running the rows, for a lease)
        async with self._db.transaction() as session:
            taken = await inbox_repo.take_expired(
                session, sorted(self.renderers), self._lease, free, MAX_ATTEMPTS, self.owner
            )
        for row in taken:
            if (row.platform, row.delivery_id) in self._running:
                continue  # still ours (a renewal was missed): its lease is fresh again
            try:
                message = decode(row.payload, self.fetchers.get(row.platform))
            except Exception:  # one bad row must not hold up the others
                logger.exception("inbox row %s/%s unreadable", row.platform, row.delivery_id)
                await self._give_up(row.platform, row.delivery_id, "unreadable message")
                continue
            logger.info(
                "resuming %s/%s after %.0f s (attempt %d)",
                row.platform,
                row.delivery_id,
                row.waited_s,
                row.attempts,
            )
            self.start(
                Delivery(
                    message,
                    posted=row.posted,
                    late=row.waited_s >= LATE_AFTER_S,
                    attempt=row.attempts,
                    limited=bool(row.payload.get("limited")),
                )
            )
        return len(taken)

    # --- settling ----------------------------------------------------------------------

    async def finish(self, message: InboundMessage) -> None:
        """The delivery was answered (retried a few times: a blip must not re-run the turn)."""
        for attempt in range(FINISH_TRIES):
            try:
                async with self._db.autocommit() as session:
                    await inbox_repo.finish(session, message.platform, message.delivery_id)
                return
            except Exception:
                if attempt == FINISH_TRIES - 1:
                    raise
                await asyncio.sleep(0.5 * 2**attempt)

    async def _give_up(self, platform: str, delivery_id: str, reason: str) -> None:
        async with self._db.autocommit() as session:
            await inbox_repo.retry_later(
                session, platform, delivery_id, 0, reason, max_attempts=0, owner=self.owner
            )

    async def retry_later(self, delivery: Delivery, error: str) -> None:
        """The attempt failed: another attempt (any worker) after a pause, up to a cap."""
        message = delivery.message
        async with self._db.autocommit() as session:
            again = await inbox_repo.retry_later(
                session,
                message.platform,
                message.delivery_id,
                RETRY_AFTER_S * delivery.attempt,
                error,
                MAX_ATTEMPTS,
                self.owner,
            )
        if not again:
            logger.error(
                "delivery %s failed %d times, given up: %s",
                message.delivery_id,
                delivery.attempt,
                error,
            )

    # --- stopping ----------------------------------------------------------------------

    async def drain(self, timeout: float) -> bool:
        """Stop taking deliveries; let go of those not started; wait for the rest.

        What does not finish within `timeout` is cancelled and let go too: the
        next worker resumes it. False when something had to be cancelled.
        """
        self.closing = True
        for loop in self._loops:
            if loop.get_name() == "inbox sweep":
                loop.cancel()
        waiting = [(d, t) for d, t in self._running.values() if not d.started]
        await self._let_go([d for d, _ in waiting], [t for _, t in waiting])
        tasks = [t for _, t in self._running.values()]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=timeout)
        else:
            pending = set()
        late = [(d, t) for d, t in self._running.values() if t in pending]
        await self._let_go([d for d, _ in late], [t for _, t in late])
        for loop in self._loops:
            loop.cancel()
        self._loops = []
        return not late

    async def _let_go(self, deliveries: list[Delivery], tasks: list[asyncio.Task[None]]) -> None:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        by_platform: dict[str, list[str]] = {}
        for delivery in deliveries:
            message = delivery.message
            by_platform.setdefault(message.platform, []).append(message.delivery_id)
        if not by_platform:
            return
        try:
            async with self._db.transaction() as session:
                for platform, ids in by_platform.items():
                    await inbox_repo.release_waiting(session, platform, ids, self.owner)
            logger.info("left %d deliveries to the next worker", len(deliveries))
        except Exception as exc:  # their leases run out on their own
            logger.warning("could not let deliveries go: %s", type(exc).__name__)
