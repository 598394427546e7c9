"""The core's event loop, and a way in from the HTTP server's own thread and loop.

Database connections and the turns live on the main (core) loop; `ragbot
serve` runs HTTP in a thread with another loop so acks never wait behind
turns. Code on the HTTP side runs core work through `on_core_loop`; when both
are one loop (tests, Socket Mode, the console) it simply awaits.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Coroutine
from concurrent.futures import Future
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


class StreamStopped(Exception):
    """A stream's producer was stopped on the core's loop (the worker is shutting down)."""


async def stream_on_core_loop(
    events: AsyncGenerator[T, None], running: set[Future[None]] | None = None
) -> AsyncGenerator[T, None]:
    """Iterate `events` on the core's loop and hand each item over here.

    For a streamed HTTP reply: the turn runs where the database and the model
    clients live, the bytes go out from the HTTP thread. Closing this generator
    (a client that went away) cancels the producer on the core's loop, so the
    turn stops and its model call with it. The producer's future is kept in
    `running` while it runs: cancelling it there (a shutdown) ends this stream
    with StreamStopped, never leaving it waiting.
    """
    here = asyncio.get_running_loop()
    core = _core_loop
    if core is None or core is here or core.is_closed():
        async with contextlib.aclosing(events) as out:
            async for item in out:
                yield item
        return
    queue: asyncio.Queue[tuple[bool, Any]] = asyncio.Queue()

    def hand_over(done: bool, value: Any) -> None:
        with contextlib.suppress(RuntimeError):  # this loop closed: nobody listens
            here.call_soon_threadsafe(queue.put_nowait, (done, value))

    async def pump() -> None:
        ended: BaseException | None = None
        try:
            async with contextlib.aclosing(events) as out:
                async for item in out:
                    hand_over(False, item)
        except asyncio.CancelledError:
            ended = StreamStopped()
            raise
        except Exception as exc:
            ended = exc
        finally:
            hand_over(True, ended)  # always: the other side never waits for nothing

    future = asyncio.run_coroutine_threadsafe(pump(), core)
    if running is not None:
        running.add(future)
        future.add_done_callback(running.discard)
    try:
        while True:
            done, value = await queue.get()
            if done:
                if value is not None:
                    raise value
                return
            yield value
    finally:
        future.cancel()  # cancels the task on the core's loop (a no-op once it finished)
