"""Small values a chat adapter keeps between updates, in Postgres (shared by all workers).

Keys are the adapter's own (`lang:<user>`, `conv:<chat>`, …): a user's chosen
language, a chat's current conversation, the conversation a bot message
belongs to, a pending upload. Each call is its own short transaction.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database
from storage.repositories import chat_state

EXCLUSIVE_LOCK = 0x7270  # advisory lock class of process-wide roles ("rp")


class ChatState:
    """Remember, recall and take per-platform values."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def remember(self, platform: str, key: str, value: str) -> None:
        """Set `key` (overwrites)."""
        async with self._db.autocommit() as session:  # one statement: atomic on its own
            await chat_state.put(session, platform, key, value)

    async def remember_many(self, platform: str, keys: list[str], value: str) -> None:
        """Set several keys to one value in one transaction."""
        async with self._db.transaction() as session:
            for key in keys:
                await chat_state.put(session, platform, key, value)

    async def recall(self, platform: str, key: str, max_age_s: float | None = None) -> str | None:
        """The value of `key`, None when unset or older than `max_age_s`."""
        async with self._db.autocommit() as session:
            return await chat_state.get(session, platform, key, max_age_s)

    async def recall_many(self, platform: str, keys: list[str]) -> dict[str, str]:
        """The values of those `keys` that are set, in one query."""
        async with self._db.autocommit() as session:
            return await chat_state.get_many(session, platform, keys)

    async def take(self, platform: str, key: str, max_age_s: float) -> str | None:
        """Remove `key`; its value when it was set less than `max_age_s` ago."""
        async with self._db.autocommit() as session:  # one DELETE … RETURNING
            return await chat_state.pop(session, platform, key, max_age_s)

    async def try_exclusive(self, name: str) -> AsyncConnection | None:
        """Hold a session advisory lock named `name` on a connection of its own.

        None when another process holds it. Closing the returned connection (or
        the process ending) releases it.
        """
        conn = await self._db.engine.connect()
        try:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            taken = await conn.scalar(
                text("SELECT pg_try_advisory_lock(:cls, hashtext(:name))"),
                {"cls": EXCLUSIVE_LOCK, "name": name},
            )
        except BaseException:
            await conn.close()
            raise
        if not taken:
            await conn.close()
            return None
        return conn
