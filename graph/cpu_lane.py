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

A holder steps out for the parts of its step that wait on the database
(`storage.cpu_work.waiting_on_io`: a search's queries, about half of a search):
the next turn in line takes its CPU steps meanwhile, and the holder comes back
first in line, ahead of the turns that have not had the lane yet. When the
step runs several such parts at once (the planner's query and the user's own
words are searched together) the lane goes at the first one's start and comes
back at the last one's end; their CPU work between goes to a thread.

A turn that has waited `patience_s` for the lane in all goes on without it
for the rest of the turn: a holder waiting on a slow database, or a queue
longer than the machine can work through, costs each turn that much at most.
The runtime gives the turns a lane only with the local embedder: a remote one
makes the search a network wait, which must not hold it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator

from storage.cpu_work import inline_cpu_work

PATIENCE_S = 0.5  # the default of CPU_LANE_PATIENCE_SECONDS


class LaneHold:
    """One step's hold on the lane: whether it has it now, and what it waited for it."""

    def __init__(self, lane: CpuLane, patience_s: float) -> None:
        self._lane = lane
        self._patience_s = patience_s  # what the step may wait in all, its returns included
        self.holds = False
        self.waited_s = 0.0  # in line: for the lane first, then each time it came back
        self.returns_waited_s = 0.0  # the part of it spent coming back (inside the step)
        self._out = 0  # the step's blocks waiting on I/O right now
        self._lent = False  # the lane was passed on and is to be taken back

    async def take(self) -> None:
        """Into the lane at the back of the line (the step's start)."""
        began = time.perf_counter()
        self.holds = await self._lane._enter(self._patience_s)
        self.waited_s = time.perf_counter() - began

    @contextlib.asynccontextmanager
    async def stepping_out(self) -> AsyncIterator[None]:
        """The lane passed on while the block waits; taken back, first in line, after it
        (within the step's patience). The lane goes at the first of the step's blocks
        to start and comes back at the last one's end."""
        if self._out == 0 and self.holds:
            self.holds = False
            self._lent = True
            self._lane._pass_on()
        self._out += 1
        try:
            yield
        except BaseException:  # failed or cancelled: the step is ending, not taking it back
            self._out -= 1
            if self._out == 0:
                self._lent = False
            raise
        self._out -= 1
        if self._out == 0 and self._lent:
            self._lent = False
            began = time.perf_counter()
            left = self._patience_s - self.waited_s
            self.holds = await self._lane._enter(left, first=True)
            waited = time.perf_counter() - began
            self.waited_s += waited
            self.returns_waited_s += waited

    def release(self) -> None:
        """The step is done: the lane to the next in line, if this step has it."""
        if self.holds:
            self.holds = False
            self._lane._pass_on()


class CpuLane:
    """The lane of one process's turns (see the module docstring)."""

    def __init__(self, patience_s: float = PATIENCE_S) -> None:
        self.patience_s = patience_s  # what one turn may wait in all
        self._busy = False
        self._waiting: deque[asyncio.Future[None]] = deque()

    @contextlib.asynccontextmanager
    async def held(self, patience_s: float | None = None) -> AsyncIterator[LaneHold]:
        """Hold the lane while the block runs, or run it without once `patience_s` (the
        turn's patience left; the lane's by default) has passed in line.

        The hold says whether the lane is held. While it is, the block's `cpu_work`
        runs on the loop's thread (`storage.cpu_work`): the holder's CPU work goes
        first. The block's `waiting_on_io` parts pass the lane on meanwhile.
        """
        hold = LaneHold(self, self.patience_s if patience_s is None else patience_s)
        await hold.take()
        try:
            with inline_cpu_work(hold):
                yield hold
        finally:
            hold.release()

    async def _enter(self, patience_s: float, first: bool = False) -> bool:
        """Into the lane, or False once `patience_s` has passed in line; `first`: ahead
        of everyone waiting (a holder coming back from a wait)."""
        if not self._busy and not self._waiting:
            self._busy = True
            return True
        if patience_s <= 0:
            return False
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if first:
            self._waiting.appendleft(turn)
        else:
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
