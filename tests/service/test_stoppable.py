"""until_stopped: a stop wins over events already waiting and closes what produces them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.turn.stoppable import StoppedError, until_stopped


async def _numbers(closed: list[str], fail_at: int | None = None) -> AsyncIterator[int]:
    try:
        for i in range(1000):
            await asyncio.sleep(0.01)
            if i == fail_at:
                raise ValueError("the model failed")
            yield i
    finally:
        closed.append("closed")


async def test_a_slow_reader_is_stopped_and_the_producer_closed() -> None:
    closed: list[str] = []
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(0.3, stop.set)
    read = 0
    with pytest.raises(StoppedError):
        async for _ in until_stopped(_numbers(closed), stop):
            read += 1
            await asyncio.sleep(0.1)  # ten times slower than the producer
    assert read <= 4 and closed == ["closed"]


async def test_events_and_failures_pass_through_unchanged() -> None:
    closed: list[str] = []
    seen = []
    with pytest.raises(ValueError, match="the model failed"):
        async for value in until_stopped(_numbers(closed, fail_at=5), asyncio.Event()):
            seen.append(value)
    assert seen == [0, 1, 2, 3, 4] and closed == ["closed"]
