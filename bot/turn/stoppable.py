"""A stream of a turn's events that its asker can stop: the work is cancelled at once.

The graph runs in a task of its own, so that a stop cancels it wherever it
waits (a model call is cancelled mid-request: no more tokens are paid for)
without cancelling the caller, who still stores and shows what was written.
The whole graph runs in that one task: LangChain's callbacks and LangGraph's
stream writer keep their context variables across the run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, TypeVar

T = TypeVar("T")


class StoppedError(Exception):
    """The turn's asker pressed Stop: the work was cancelled."""


async def until_stopped(events: AsyncIterator[T], stop: asyncio.Event) -> AsyncGenerator[T, None]:
    """`events` as they come, until `stop` is set: then the producer is cancelled and
    `StoppedError` raised. A failure of `events` is raised here as it was.

    A stop wins over events already waiting (a slow reader must not read the turn
    to its end), and the producer closes `events` when cancelled, so the graph's
    own tasks (a node mid-model-call) are cancelled too.
    """
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(maxsize=1)

    async def produce() -> None:
        try:
            async with contextlib.aclosing(events):  # type: ignore[type-var]
                async for item in events:
                    await queue.put(("item", item))
        except Exception as exc:  # handed over; a cancellation is this task's own end
            await queue.put(("error", exc))
            return
        await queue.put(("end", None))

    producer = asyncio.create_task(produce())
    stopping = asyncio.create_task(stop.wait())
    try:
        while True:
            if stop.is_set():
                raise StoppedError
            taking = asyncio.create_task(queue.get())
            await asyncio.wait({taking, stopping, producer}, return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set() or not taking.done():
                taking.cancel()
                if stop.is_set():
                    raise StoppedError
                if producer.done() and queue.empty():  # it ended without a word
                    raise RuntimeError("the turn's work ended without handing anything over")
                continue
            kind, value = taking.result()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        producer.cancel()
        stopping.cancel()
        await asyncio.gather(producer, stopping, return_exceptions=True)
