"""One turn at a time per conversation, in this process and across workers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from storage.db import Database
from storage.session_locks import SessionLocks

CONVERSATION_LOCK = 0x7262  # advisory lock class of conversations ("rb")


@dataclass
class _Local:
    """A conversation's in-process lock and how many turns hold or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class ConversationLocks:
    """Serialises the turns of each conversation and bounds how many run at once.

    Messages of one conversation in this process queue on an asyncio lock; the
    turn that runs takes the conversation's advisory lock, which other workers'
    turns of the same conversation wait for. Those locks live on one connection
    of the process (storage.session_locks): a turn holds no pooled connection
    while it waits for the model, so `max_concurrent` (MAX_CONCURRENT_TURNS)
    bounds the work at once, not the pool.
    """

    def __init__(self, db: Database, max_concurrent: int) -> None:
        self._locks = SessionLocks(db)
        self._slots = asyncio.Semaphore(max_concurrent)
        self._local: dict[str, _Local] = {}  # dropped when no turn holds or waits

    def busy(self, platform: str, key: str) -> bool:
        """True when a turn of this conversation would wait here now (no free slot, or
        the conversation's previous turn still runs in this process)."""
        local = self._local.get(f"{platform}:{key}")
        return self._slots.locked() or (local is not None and local.lock.locked())

    @contextlib.asynccontextmanager
    async def hold(
        self, platform: str, key: str, lined_up: Callable[[], None] | None = None
    ) -> AsyncIterator[None]:
        """Wait for the conversation's turn and a free slot; hold both while the block runs.

        `lined_up` is called once the turn's place in the queue is taken: the
        lock's queue is first come, first served, and the next message may then
        come (see `arrival_line`).
        """
        name = f"{platform}:{key}"
        local = self._local.setdefault(name, _Local())
        local.users += 1
        try:
            if lined_up is not None:
                # what the call wakes runs after this step, which acquires or joins the
                # lock's queue without yielding: the place is taken before anyone moves
                lined_up()
            async with local.lock, self._slots:
                await self._locks.acquire(CONVERSATION_LOCK, name)
                try:
                    yield
                finally:  # a cancelled turn lets go too
                    await asyncio.shield(self._locks.release(CONVERSATION_LOCK, name))
        finally:
            local.users -= 1
            if not local.users:
                del self._local[name]

    async def close(self) -> None:
        """Let go of every conversation lock of this process (its lock connection closes)."""
        await self._locks.close()
