"""A turn's trace is finished once, with what the asker was shown, even when its store
fails or its caller leaves while its stopped answer is being stored (real Postgres)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from bot.service import AnswerService
from graph.context import GraphContext
from graph.events import ErrorReply, FinalAnswer
from storage.db import Database
from storage.search import HybridSearcher

QUESTION = "When does the library open?"


def _traced(service: AnswerService, monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, Any]]:
    """Each finished trace: (an answer given, the error)."""
    finished: list[tuple[bool, Any]] = []
    finish = service._finish_trace

    def spied(trace: Any, platform: str, state: Any, answer: Any, error: Any, *rest: Any) -> None:
        finished.append((answer is not None, error))
        finish(trace, platform, state, answer, error, *rest)

    monkeypatch.setattr(service, "_finish_trace", spied)
    return finished


async def _unfinished_errors(db: Database) -> list[str]:
    async with db.sessions() as s:
        rows = await s.execute(
            text("SELECT details->>'error' FROM messages WHERE role = 'user' AND blocked")
        )
        return [r[0] for r in rows]


def _failing_to_store(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> tuple[AnswerService, list[tuple[bool, Any]]]:
    """A service whose turns cannot be stored (the database went away), and its traces."""
    service = AnswerService(db, GraphContext(searcher=searcher))
    traced = _traced(service, monkeypatch)

    async def failing_store(*args: Any, **kwargs: Any) -> int:
        raise ConnectionError("the database went away")

    monkeypatch.setattr(service, "_store", failing_store)
    return service, traced


async def test_a_turn_whose_store_fails_is_traced_once_as_the_error_shown(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, traced = _failing_to_store(db, searcher, monkeypatch)
    events = [e async for e in service.stream(QUESTION, conversation="t1")]
    assert isinstance(events[-1], ErrorReply)
    assert not any(isinstance(e, FinalAnswer) for e in events)
    assert traced == [(False, "ConnectionError")]  # once: not the answer, then the error
    assert await _unfinished_errors(db) == ["ConnectionError"]


async def test_a_stopped_turn_whose_store_fails_is_traced_once_with_that_error(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, traced = _failing_to_store(db, searcher, monkeypatch)
    stop = asyncio.Event()
    with pytest.raises(ConnectionError):
        async for _ in service.stream(QUESTION, conversation="t2", stop=stop):
            stop.set()  # the asker presses Stop at the first step
    assert traced == [(False, "ConnectionError")]  # not "cancelled": the caller stayed
    assert await _unfinished_errors(db) == ["ConnectionError"]


async def test_a_stopped_answer_stored_after_its_caller_left_is_traced_once_as_answered(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = AnswerService(db, GraphContext(searcher=searcher))
    traced = _traced(service, monkeypatch)
    store, reached, go_on = service._store, asyncio.Event(), asyncio.Event()

    async def slow_store(*args: Any, **kwargs: Any) -> int:
        reached.set()
        await go_on.wait()
        return await store(*args, **kwargs)

    monkeypatch.setattr(service, "_store", slow_store)
    stop = asyncio.Event()

    async def ask() -> None:
        async for _ in service.stream(QUESTION, conversation="t3", stop=stop):
            stop.set()

    asking = asyncio.create_task(ask())
    await asyncio.wait_for(reached.wait(), 10)
    asking.cancel()  # the caller goes while the stopped answer is being stored
    await asyncio.sleep(0.05)
    go_on.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asking, 10)
    assert traced == [(True, None)]
    assert await _unfinished_errors(db) == []


async def test_an_answered_turn_is_traced_once(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = AnswerService(db, GraphContext(searcher=searcher))
    traced = _traced(service, monkeypatch)
    events = [e async for e in service.stream(QUESTION, conversation="t4")]
    assert isinstance(events[-1], FinalAnswer)
    assert traced == [(True, None)]
