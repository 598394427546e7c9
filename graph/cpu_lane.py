"""One turn at a time through the steps that are mostly CPU, in the order they came.

A worker runs many turns at once on one interpreter. Their model calls wait on
the network and overlap well; their CPU steps (the guard's checks, the query,
the search: embedding, jieba, ranking) do not: twenty turns arriving together
share the interpreter round-robin, so every one of them reaches its answer late
together. Taken one at a time in arrival order, the first ones are through in a
fraction of the time and the last no later than before (the work is the same).

While a turn holds the lane its CPU work (`storage.cpu_work`: jieba, embedding)
runs on the loop's own thread, not in a worker thread: in a thread it would get
the interpreter in slices between everything else the loop runs, and the holder
is the turn whose work should go first.

A turn that has waited `patience_s` for the lane in all goes on without it
for the rest of the turn: a holder waiting on a slow database, or a queue
longer than the machine can work through, costs each turn that much at most.
The runtime gives the turns a lane only with the local embedder: a remote one
makes the search a network wait, which must not hold it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator

from storage.cpu_work import inline_cpu_work

PATIENCE_S = 0.5  # the default of CPU_LANE_PATIENCE_SECONDS


class CpuLane:
    """The lane of one process's turns (see the module docstring)."""

    def __init__(self, patience_s: float = PATIENCE_S) -> None:
        self.patience_s = patience_s  # what one turn may wait in all
        self._busy = False
        self._waiting: deque[asyncio.Future[None]] = deque()

    @contextlib.asynccontextmanager
    async def held(self, patience_s: float | None = None) -> AsyncIterator[bool]:
        """Hold the lane while the block runs, or run it without once `patience_s` (the
        turn's patience left; the lane's by default) has passed in line.

        Says whether the lane is held. While it is, the block's `cpu_work` runs on the
        loop's thread (`storage.cpu_work`): the holder's CPU work goes first.
        """
        holding = await self._enter(self.patience_s if patience_s is None else patience_s)
        try:
            if holding:
                with inline_cpu_work():
                    yield True
            else:
                yield False
        finally:
            if holding:
                self._pass_on()

    async def _enter(self, patience_s: float) -> bool:
        if not self._busy and not self._waiting:
            self._busy = True
            return True
        if patience_s <= 0:
            return False
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for may swallow a cancellation
            # that lands as the lane is handed over (a Stop, a drain)
            async with asyncio.timeout(patience_s):
                await asyncio.shield(turn)
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
