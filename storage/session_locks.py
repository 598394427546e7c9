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
import logging
from collections import Counter

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database

logger = logging.getLogger(__name__)
POLL_S = 0.05  # how often a lock another worker holds is tried again


class SessionLocks:
    """Session-level advisory locks (class, key) on one dedicated connection."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._conn: AsyncConnection | None = None
        self._use = asyncio.Lock()  # one query at a time on the connection
        self._held: Counter[tuple[int, str]] = Counter()

    async def acquire(self, lock_class: int, key: str) -> None:
        """Wait until this process holds (lock_class, key); another worker may hold it now."""
        while True:
            async with self._use:
                if await self._query(
                    "SELECT pg_try_advisory_lock(:cls, hashtext(:key))", lock_class, key
                ):
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
            try:
                await self._query(
                    "SELECT pg_advisory_unlock(:cls, hashtext(:key))", lock_class, key
                )
            except Exception:  # the connection is gone, and the lock with it
                logger.warning("could not let go of an advisory lock", exc_info=True)

    async def close(self) -> None:
        """Let go of every lock (the connection closes)."""
        async with self._use:
            await self._drop()

    async def _query(self, sql: str, lock_class: int, key: str) -> bool:
        """One lock query; a lost connection is replaced once (its locks went with it)."""
        for attempt in (1, 2):
            if self._conn is None:
                self._conn = await self._db.engine.connect()
                await self._conn.execution_options(isolation_level="AUTOCOMMIT")
            try:
                return bool(await self._conn.scalar(text(sql), {"cls": lock_class, "key": key}))
            except Exception:
                if attempt == 2:
                    raise
                logger.warning("the advisory lock connection was lost; taking a new one")
                await self._drop()
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
