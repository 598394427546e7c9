"""A process closing keeps what its cancelled turns were still storing (real Postgres,
the runtime as `ragbot serve` and each turn worker open it)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from bot.app.runtime import open_runtime
from storage.db import Database
from tests.support.core_fixtures import settings_for_tests

STORE_S = 1.0  # how long the unfinished question's store takes: still on its way at the close


async def _unfinished(db: Database, conversation: str) -> list[str]:
    async with db.sessions() as s:
        rows = await s.execute(
            text(
                "SELECT m.details->>'error' FROM messages m JOIN conversations c"
                " ON c.id = m.conversation_id WHERE c.external_id = :c AND m.blocked"
            ),
            {"c": conversation},
        )
        return [r[0] for r in rows]


async def _cancelled_while_storing(
    service: Any, monkeypatch: pytest.MonkeyPatch, conv: str
) -> None:
    """A turn that fails, whose caller goes (cancelled twice, as a worker told to quit
    does) while its question is being stored as unfinished."""

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("the turn failed")

    monkeypatch.setattr(service, "_result", broken)
    store, reached = service._turns.unfinished, asyncio.Event()

    async def slow(*args: Any, **kwargs: Any) -> None:
        reached.set()
        await asyncio.sleep(STORE_S)
        await store(*args, **kwargs)

    monkeypatch.setattr(service._turns, "unfinished", slow)

    async def ask() -> None:
        async for _ in service.stream("When does the library open?", conversation=conv):
            pass

    asking = asyncio.create_task(ask())
    await asyncio.wait_for(reached.wait(), 30)
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asking, 10)


async def test_closing_the_runtime_waits_for_a_cancelled_turns_store(
    database_url: str, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_for_tests(DATABASE_URL=database_url)
    async with open_runtime(settings, check_index=False) as rt:
        service = rt.answer_service()
        await _cancelled_while_storing(service, monkeypatch, "settle-1")
        assert await _unfinished(db, "settle-1") == []  # still on its way
    # closed: the question is kept (as unfinished, with the turn's error), nothing pending
    assert await _unfinished(db, "settle-1") == ["ValueError"]
    assert await service.settle(0)


async def test_closing_waits_only_so_long_for_a_store_that_does_not_end(
    database_url: str,
    db: Database,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = settings_for_tests(DATABASE_URL=database_url)
    monkeypatch.setattr("bot.app.runtime.SETTLE_S", 0.2)
    monkeypatch.setattr(f"{__name__}.STORE_S", 60.0)
    loop = asyncio.get_running_loop()
    async with open_runtime(settings, check_index=False) as rt:
        service = rt.answer_service()
        await _cancelled_while_storing(service, monkeypatch, "settle-2")
        closing = loop.time()
    try:
        assert loop.time() - closing < 5  # the close went on without it
        assert "turns still being stored after 0.2 s" in caplog.text  # and said so
        assert not await service.settle(0)
    finally:
        for task in list(service._settling):
            task.cancel()
