"""Advisory locks held across workers without a pooled connection per lock.

A turn used to hold its conversation's lock as a transaction lock: one pooled
connection for the whole turn, most of it spent waiting for the model, so the
number of turns at once had to stay as small as the pool. Here every lock of
the process lives on one connection of its own (session-level advisory locks):
taking or letting go of one is part of a short query, and a turn holds no
connection while it waits for the model.

Requests are batched: whatever was asked while the previous query ran (locks to
take, locks to let go of) goes in the next one, a single round trip. Twenty
questions arriving at once used to queue twenty queries on that connection, the
last waiting for all the others.

If that connection is lost, Postgres lets go of all its locks: the turns under
way finish without them (the window a lost transaction lock had too), and the
next lock is taken on a new connection.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database

logger = logging.getLogger(__name__)
POLL_S = 0.05  # how often a lock another worker holds is tried again
QUERY_TIMEOUT_S = 10.0  # a lock query slower than this means the connection is gone
# one round trip for a batch; rows come back, and locks are taken, in the order asked
BATCH = (
    "SELECT CASE WHEN t.take THEN pg_try_advisory_lock(t.cls, hashtext(t.key))"
    " ELSE pg_advisory_unlock(t.cls, hashtext(t.key)) END"
    " FROM unnest(CAST(:take AS boolean[]), CAST(:cls AS integer[]), CAST(:key AS text[]))"
    " WITH ORDINALITY AS t(take, cls, key, n) ORDER BY t.n"
)


@dataclass
class _Request:
    """One lock to take (`take`) or let go of, and the caller waiting for the outcome."""

    take: bool
    lock_class: int
    key: str
    outcome: asyncio.Future[bool] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    @property
    def name(self) -> tuple[int, str]:
        return (self.lock_class, self.key)


class SessionLocks:
    """Session-level advisory locks (class, key) on one dedicated connection."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._conn: AsyncConnection | None = None
        self._held: Counter[tuple[int, str]] = Counter()
        self._asked: list[_Request] = []  # for the next round trip
        self._sender: asyncio.Task[None] | None = None  # the one task using the connection
        self._closed = False

    async def acquire(self, lock_class: int, key: str) -> None:
        """Wait until this process holds (lock_class, key); another worker may hold it now."""
        while True:
            if self._closed:
                raise RuntimeError("the conversation locks are closed (shutting down)")
            if "\x00" in key:  # Postgres refuses it in text: it would fail the whole batch
                raise ValueError("a lock key cannot hold a NUL character")
            # A cancelled wait (Stop, a drain) leaves its request behind: the round trip
            # it is part of runs to its end (a query cut half-way costs the connection,
            # and with it every lock of every turn this process runs), and a lock taken
            # for a turn that will not run is let go of then.
            request = _Request(True, lock_class, key)
            try:
                got = await self._ask(request)
            except asyncio.CancelledError:
                if _taken(request.outcome):  # taken just before the wait was cancelled
                    self._let_go(request.name)
                raise
            if got:
                return
            await asyncio.sleep(POLL_S)

    async def release(self, lock_class: int, key: str) -> None:
        """Let go of one hold of (lock_class, key). A lost connection has let go already."""
        outcome = self._let_go((lock_class, key))
        if outcome is not None:
            await outcome

    def _let_go(self, name: tuple[int, str]) -> asyncio.Future[bool] | None:
        """Count one hold of `name` less and ask for it to be let go of (None: not held)."""
        if self._held[name] <= 0:
            return None  # held on a connection since lost: Postgres let go of it then
        self._held[name] -= 1
        if not self._held[name]:
            del self._held[name]
        return self._ask(_Request(False, *name))

    async def close(self) -> None:
        """Let go of every lock (the connection closes); no lock is taken after this."""
        self._closed = True
        if self._sender is not None:
            # waited for, never cancelled with close(): the waiters of its round trip
            # would be left without an answer
            await asyncio.wait({self._sender})
        await self._drop()

    def _ask(self, request: _Request) -> asyncio.Future[bool]:
        """Queue a request for the next round trip; its outcome (True: taken / let go of)."""
        self._asked.append(request)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send())
        return request.outcome

    async def _send(self) -> None:
        """Send what was asked, a batch per round trip, until nothing is left."""
        try:
            await self._send_batches()
        except BaseException as exc:  # cancelled (the loop closing) or a bug: nobody hangs
            for request in self._asked:
                if request.take:
                    _fail(request, exc)
                else:
                    _settle(request, False)
            self._asked = []
            raise

    async def _send_batches(self) -> None:
        while self._asked:
            batch, self._asked = self._asked, []
            # a wait cancelled before its query was sent asks nothing
            batch = [r for r in batch if not (r.take and r.outcome.done())]
            try:
                answered = await self._round_trip(batch)
            except BaseException as exc:
                for request in batch:
                    if request.take:
                        _fail(request, exc)
                    else:  # the connection went, and the lock with it
                        _settle(request, False)
                if not isinstance(exc, Exception):
                    raise
                continue
            for request, ok in answered:
                if not request.take:
                    _settle(request, ok)
                elif ok and request.outcome.done():  # taken for a turn that will not run
                    self._asked.append(_Request(False, *request.name))
                elif ok:
                    self._held[request.name] += 1
                    request.outcome.set_result(True)
                else:
                    _settle(request, False)

    async def _round_trip(self, batch: list[_Request]) -> list[tuple[_Request, bool]]:
        """One query for the batch, each request with its outcome. Letting go needs no
        query when no connection holds anything (never opened, closing, or lost); a lost
        connection is replaced once, and only the batch's takes are sent again."""
        for attempt in (1, 2):
            if self._conn is None or self._closed:
                for request in batch:
                    if not request.take:
                        _settle(request, False)
                batch = [r for r in batch if r.take]
            if self._closed:
                raise RuntimeError("the conversation locks are closed (shutting down)")
            if not batch:
                return []
            try:
                async with asyncio.timeout(QUERY_TIMEOUT_S):
                    if self._conn is None:
                        self._conn = await self._db.engine.connect()
                        await self._conn.execution_options(isolation_level="AUTOCOMMIT")
                    params = {
                        "take": [r.take for r in batch],
                        "cls": [r.lock_class for r in batch],
                        "key": [r.key for r in batch],
                    }
                    rows = (await self._conn.execute(text(BATCH), params)).all()
                    return list(zip(batch, (bool(row[0]) for row in rows), strict=True))
            except Exception as exc:
                if self._held:
                    logger.error(
                        "a conversation lock query failed (%s): its connection is closed, and"
                        " %d turns under way run without their lock until they end",
                        type(exc).__name__,
                        sum(self._held.values()),
                    )
                await self._drop()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _drop(self) -> None:
        """Close the connection: Postgres lets go of its locks; none are held here then."""
        self._held.clear()
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                await conn.invalidate()  # never back to the pool still holding locks
                await conn.close()
            except Exception:
                logger.debug("closing the lost lock connection failed", exc_info=True)


def _taken(outcome: asyncio.Future[bool]) -> bool:
    return (
        outcome.done()
        and not outcome.cancelled()
        and outcome.exception() is None
        and outcome.result()
    )


def _settle(request: _Request, outcome: bool) -> None:
    if not request.outcome.done():
        request.outcome.set_result(outcome)


def _fail(request: _Request, cause: BaseException) -> None:
    if not request.outcome.done():
        # one exception each (a shared one would gather every waiter's traceback)
        error = RuntimeError(f"conversation lock not taken ({type(cause).__name__})")
        error.__cause__ = cause
        request.outcome.set_exception(error)
        request.outcome.exception()  # read here: a wait that was cancelled never reads it
