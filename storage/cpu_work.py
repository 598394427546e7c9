"""Where a turn's CPU work runs: in a worker thread, or on the event loop's own thread
while the turn holds its process's CPU lane (`graph.cpu_lane`).

In a thread, such work shares the interpreter with everything else the loop runs
(other turns' streams and steps): under load each gets slices of it, and a
few milliseconds of jieba or tokenising take many times that. The turn holding
the lane is the one whose CPU work should go first, so its small pieces run
inline: the loop's other work waits those milliseconds instead. Work on more
than `INLINE_MAX_CHARS` of text (a long message, a long generated query) still
goes to a thread, so no input can hold the loop for long.

Only the runtime's local embedder is ever run this way: with a remote one (a
network call) the runtime gives the turns no lane.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

# at most about 40 ms of jieba and embedding here (600 characters embed in 37 ms; a
# question of 20 to 100 characters takes 3 to 8 ms)
INLINE_MAX_CHARS = 600

_INLINE: ContextVar[bool] = ContextVar("cpu_work_inline", default=False)


async def cpu_work(chars: int, func: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """`func(*args, **kwargs)`, on `chars` characters of text: inline when the caller holds
    the CPU lane and the text is short, else in a thread."""
    if _INLINE.get() and chars <= INLINE_MAX_CHARS:
        return func(*args, **kwargs)
    return await asyncio.to_thread(func, *args, **kwargs)


@contextlib.contextmanager
def inline_cpu_work() -> Iterator[None]:
    """Within this block `cpu_work` may run inline.

    A task started inside the block inherits this: it must not outlive the block
    and still call `cpu_work` (it would run inline without holding the lane).
    """
    token = _INLINE.set(True)
    try:
        yield
    finally:
        _INLINE.reset(token)
