"""Advisory locks held across workers without a pooled connection per lock.

A turn used to hold its conversation's lock as a transaction lock: one pooled
connection for the whole turn, most of it spent waiting for the model, so the
number of turns at once had to stay as small as the pool. Here every lock of
the process lives on one connection of its own (session-level advisory locks):
taking or letting go of one is a single short query, and a turn holds no
connection while it waits for the model.

If that connection is lost, Postgres lets go of all its locks: the turns under
way finish without them (the window a lost transaction lock had too), and the
next lock is taken on a new connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database

logger = logging.getLogger(__name__)
POLL_S = 0.05  # how often a lock another worker holds is tried again
QUERY_TIMEOUT_S = 10.0  # a lock query slower than this means the connection is gone
TRY_LOCK = "SELECT pg_try_advisory_lock(:cls, hashtext(:key))"
UNLOCK = "SELECT pg_advisory_unlock(:cls, hashtext(:key))"


class SessionLocks:
    """Session-level advisory locks (class, key) on one dedicated connection."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._conn: AsyncConnection | None = None
        self._use = asyncio.Lock()  # one query at a time on the connection
        self._held: Counter[tuple[int, str]] = Counter()
        self._closed = False

    async def acquire(self, lock_class: int, key: str) -> None:
        """Wait until this process holds (lock_class, key); another worker may hold it now."""
        while True:
            async with self._use:
                if self._closed:
                    raise RuntimeError("the conversation locks are closed (shutting down)")
                # The query runs to its end even when the waiting turn is cancelled (Stop,
                # a drain): a query cut half-way costs the connection, and with it every
                # lock of every turn this process runs.
                query = asyncio.ensure_future(self._query(TRY_LOCK, lock_class, key))
                try:
                    got = await asyncio.shield(query)
                except asyncio.CancelledError:
                    with contextlib.suppress(Exception):
                        if await query:  # taken for a turn that will not run: let it go
                            await self._query(UNLOCK, lock_class, key)
                    raise
                if got:
                    self._held[(lock_class, key)] += 1
                    return
            await asyncio.sleep(POLL_S)

    async def release(self, lock_class: int, key: str) -> None:
        """Let go of one hold of (lock_class, key)."""
        async with self._use:
            if self._held[(lock_class, key)] <= 0:
                return  # held on a connection since lost: Postgres let go of it then
            self._held[(lock_class, key)] -= 1
            if not self._held[(lock_class, key)]:
                del self._held[(lock_class, key)]
            if self._conn is None:
                return
            try:
                await self._query(UNLOCK, lock_class, key)
            except Exception:  # the connection is gone, and the lock with it
                logger.warning("could not let go of a conversation lock", exc_info=True)

    async def close(self) -> None:
        """Let go of every lock (the connection closes); no lock is taken after this."""
        async with self._use:
            self._closed = True
            await self._drop()

    async def _query(self, sql: str, lock_class: int, key: str) -> bool:
        """One lock query; a lost connection is replaced once (its locks went with it)."""
        for attempt in (1, 2):
            try:
                async with asyncio.timeout(QUERY_TIMEOUT_S):
                    if self._conn is None:
                        self._conn = await self._db.engine.connect()
                        await self._conn.execution_options(isolation_level="AUTOCOMMIT")
                    params = {"cls": lock_class, "key": key}
                    return bool(await self._conn.scalar(text(sql), params))
            except Exception:
                if self._held:
                    logger.error(
                        "the conversation lock connection was lost: %d turns under way run"
                        " without their lock until they end",
                        sum(self._held.values()),
                    )
                await self._drop()
                if attempt == 2 or sql == UNLOCK:
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
