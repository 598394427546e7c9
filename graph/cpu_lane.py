"""One turn at a time through the steps that are mostly CPU, in the order they came.

A worker runs many turns at once on one interpreter. Their model calls wait on
the network and overlap well; their CPU steps (the guard's checks, the query,
the search: embedding, jieba, ranking) do not: twenty turns arriving together
share the interpreter round-robin, so every one of them reaches its answer late
together. Taken one at a time in arrival order, the first ones are through in a
fraction of the time and the last no later than before (the work is the same).

A step that waits longer than `patience_s` for the lane goes on without it: a
step holding the lane while it waits (a slow database) delays the others by at
most that. The runtime gives the turns a lane only with the local embedder: a
remote one makes the search a network wait, which must not hold it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator

PATIENCE_S = 0.5  # several turns' CPU steps: waiting longer means the holder waits on I/O


class CpuLane:
    """The lane of one process's turns (see the module docstring)."""

    def __init__(self, patience_s: float = PATIENCE_S) -> None:
        self._patience = patience_s
        self._busy = False
        self._waiting: deque[asyncio.Future[None]] = deque()

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Hold the lane while the block runs (or run it without, once out of patience)."""
        holding = await self._enter()
        try:
            yield
        finally:
            if holding:
                self._pass_on()

    async def _enter(self) -> bool:
        if not self._busy and not self._waiting:
            self._busy = True
            return True
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            await asyncio.wait_for(asyncio.shield(turn), self._patience)
        except TimeoutError:
            if turn.done():  # handed the lane just as patience ran out: it is ours
                return True
            self._waiting.remove(turn)
            return False
        except BaseException:
            if turn.done():  # handed over, then cancelled: pass it on
                self._pass_on()
            else:
                self._waiting.remove(turn)
            raise
        return True

    def _pass_on(self) -> None:
        """The holder is done: the longest waiter gets the lane (it stays busy)."""
        if self._waiting:
            self._waiting.popleft().set_result(None)
        else:
            self._busy = False
