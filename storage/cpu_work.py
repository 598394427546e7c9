"""Where a turn's CPU work runs: in a worker thread, or on the event loop's own thread
while the turn holds its process's CPU lane (`graph.cpu_lane`).

In a thread, such work shares the interpreter with everything else the loop runs
(other turns' streams and steps): under load each gets slices of it, and a
few milliseconds of jieba or tokenising take many times that. The turn holding
the lane is the one whose CPU work should go first, so its small pieces run
inline: the loop's other work waits those milliseconds instead. Work on more
than `INLINE_MAX_CHARS` of text (a long message, a long generated query) still
goes to a thread, so no input can hold the loop for long.

A holder's block that waits on the database (`waiting_on_io`: a search's
queries) passes the lane on meanwhile: the next turn's CPU work runs while
Postgres works, instead of both waiting for the round trip.

Only the runtime's local embedder is ever run this way: with a remote one (a
network call) the runtime gives the turns no lane.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from typing import ParamSpec, Protocol, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

# at most about 40 ms of jieba and embedding here (600 characters embed in 37 ms; a
# question of 20 to 100 characters takes 3 to 8 ms)
INLINE_MAX_CHARS = 600


class LaneHolding(Protocol):
    """A step's hold on its process's CPU lane (`graph.cpu_lane`), as this module sees it."""

    @property
    def holds(self) -> bool:
        """Whether the step has the lane now (not out of patience, not stepped out)."""
        ...

    def stepping_out(self) -> AbstractAsyncContextManager[None]:
        """The lane passed on for a block that waits, and taken back, first in line, after."""
        ...


_HOLDING: ContextVar[LaneHolding | None] = ContextVar("cpu_lane_holding", default=None)


async def cpu_work(chars: int, func: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """`func(*args, **kwargs)`, on `chars` characters of text: inline when the caller holds
    the CPU lane and the text is short, else in a thread."""
    holding = _HOLDING.get()
    if holding is not None and holding.holds and chars <= INLINE_MAX_CHARS:
        return func(*args, **kwargs)
    return await asyncio.to_thread(func, *args, **kwargs)


@contextlib.contextmanager
def inline_cpu_work(holding: LaneHolding) -> Iterator[None]:
    """Within this block `cpu_work` runs inline while `holding` holds the lane.

    A task started inside the block inherits this: it must not outlive the block
    and still call `cpu_work` (it would run inline without holding the lane).
    """
    token = _HOLDING.set(holding)
    try:
        yield
    finally:
        _HOLDING.reset(token)


@contextlib.asynccontextmanager
async def waiting_on_io() -> AsyncIterator[None]:
    """A block that waits on the database (or the network) and does little CPU work.

    A lane holder passes the lane on for the block, so the next turn's CPU work
    runs while this one waits, and takes it back after, ahead of the turns that
    have not had it yet. Outside a lane this is nothing.
    """
    holding = _HOLDING.get()
    if holding is None:
        yield
        return
    async with holding.stepping_out():
        yield
