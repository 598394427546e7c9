"""Where a turn's CPU work runs: in a worker thread, or on the event loop's own thread
while the turn holds its process's CPU lane (`graph.cpu_lane`).

In a thread, such work shares the interpreter with everything else the loop runs
(other turns' streams and steps): under load each gets slices of it, and a
few milliseconds of jieba or embedding take many times that. The turn holding the
lane is the one whose CPU work should go first, so it runs inline: the loop's
other work waits those milliseconds instead.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_INLINE: ContextVar[bool] = ContextVar("cpu_work_inline", default=False)


async def cpu_work(func: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """`func(*args, **kwargs)`, inline when the caller holds the CPU lane, else in a thread."""
    if _INLINE.get():
        return func(*args, **kwargs)
    return await asyncio.to_thread(func, *args, **kwargs)


@contextlib.contextmanager
def inline_cpu_work() -> Iterator[None]:
    """Within this block (and the tasks it starts), `cpu_work` runs on the loop's thread."""
    token = _INLINE.set(True)
    try:
        yield
    finally:
        _INLINE.reset(token)
