"""A turn whose asker presses Stop and then goes away while its stopped answer is stored."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.turn.service import AnswerService


async def stop_then_leave(
    service: AnswerService,
    monkeypatch: pytest.MonkeyPatch,
    question: str,
    conversation: str,
    store: Callable[..., Awaitable[int]] | None = None,
) -> tuple[asyncio.Task[None], asyncio.Event]:
    """Stop pressed at the first step, then the caller cancelled while the stopped answer
    is being stored: the store is held until the returned event is set, then runs
    `store` (None: it never ends). Returns the cancelled caller's task and that event."""
    reached, go_on = asyncio.Event(), asyncio.Event()

    async def held_store(*args: Any, **kwargs: Any) -> int:
        reached.set()  # waiting, as for a pooled connection
        await go_on.wait()
        return await store(*args, **kwargs) if store else 0

    monkeypatch.setattr(service._turns, "answered", held_store)
    stop = asyncio.Event()

    async def ask() -> None:
        async for _ in service.stream(question, conversation=conversation, stop=stop):
            stop.set()

    asking = asyncio.create_task(ask())
    await asyncio.wait_for(reached.wait(), 10)
    asking.cancel()
    return asking, go_on
