"""The core's event loop, and a way in from the HTTP server's own thread and loop.

Database connections and the turns live on the main (core) loop; `ragbot
serve` runs HTTP in a thread with another loop so acks never wait behind
turns. Code on the HTTP side runs core work through `on_core_loop`; when both
are one loop (tests, Socket Mode, the console) it simply awaits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
_core_loop: asyncio.AbstractEventLoop | None = None


def remember_core_loop() -> None:
    """Mark the running loop as the core's (called once at start)."""
    global _core_loop
    _core_loop = asyncio.get_running_loop()


async def on_core_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await `coro` on the core's loop, from whichever loop is running."""
    here = asyncio.get_running_loop()
    if _core_loop is None or _core_loop is here or _core_loop.is_closed():
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, _core_loop))
