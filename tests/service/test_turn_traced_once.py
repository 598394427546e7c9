"""A turn's trace is finished once, with what the asker was shown, even when its store
fails or its caller leaves while its stopped answer is being stored (real Postgres)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.events import ErrorReply, FinalAnswer
from storage.db import Database
from storage.search import HybridSearcher
from tests.support.stopping import stop_then_leave

QUESTION = "When does the library open?"


def _traced(service: AnswerService, monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, Any]]:
    """Each finished trace: (an answer given, the error)."""
    finished: list[tuple[bool, Any]] = []
    finish = service._finish_trace

    def spied(trace: Any, platform: str, state: Any, answer: Any, error: Any, *rest: Any) -> None:
        if not trace.finished:  # a later call is a no-op: the trace has its outcome
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

    monkeypatch.setattr(service._turns, "answered", failing_store)
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
    events = []
    async for event in service.stream(QUESTION, conversation="t2", stop=stop):
        stop.set()  # the asker presses Stop at the first step
        events.append(event)
    # told, as for any failed turn (not an exception the adapter would have to guess at)
    assert isinstance(events[-1], ErrorReply) and events[-1].error == "ConnectionError"
    assert not any(isinstance(e, FinalAnswer) for e in events)
    assert traced == [(False, "ConnectionError")]  # not "cancelled": the caller stayed
    assert await _unfinished_errors(db) == ["ConnectionError"]


async def test_a_stopped_answer_stored_after_its_caller_left_is_traced_once_as_answered(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = AnswerService(db, GraphContext(searcher=searcher))
    traced = _traced(service, monkeypatch)
    asking, go_on = await stop_then_leave(
        service, monkeypatch, QUESTION, "t3", service._turns.answered
    )
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


async def test_a_failed_turn_whose_caller_goes_while_it_is_stored_is_traced_and_kept_once(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = AnswerService(db, GraphContext(searcher=searcher))
    traced = _traced(service, monkeypatch)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("the turn failed")

    monkeypatch.setattr(service, "_result", broken)
    store_failed, reached, go_on = service._turns.unfinished, asyncio.Event(), asyncio.Event()

    async def slow(*args: Any, **kwargs: Any) -> None:
        reached.set()
        await go_on.wait()
        await store_failed(*args, **kwargs)

    monkeypatch.setattr(service._turns, "unfinished", slow)
    asking = asyncio.create_task(_drain(service.stream(QUESTION, conversation="t5")))
    await asyncio.wait_for(reached.wait(), 10)
    asking.cancel()  # the caller goes while the failed turn is being stored
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asking, 10)
    go_on.set()
    for _ in range(200):
        if await _unfinished_errors(db):
            break
        await asyncio.sleep(0.025)
    assert traced == [(False, "ValueError")]  # not then again as "cancelled"
    assert await _unfinished_errors(db) == ["ValueError"]  # once, with the real error


async def test_a_stopped_answers_trace_is_finished_even_if_its_settling_is_cut_short(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process ending cancels the task that waits for a stopped answer's store:
    the trace still gets its outcome."""
    service = AnswerService(db, GraphContext(searcher=searcher))
    traced = _traced(service, monkeypatch)
    asking, _ = await stop_then_leave(service, monkeypatch, QUESTION, "t6")  # the store never ends
    settling = None
    for _ in range(200):
        settling = next(
            (t for t in asyncio.all_tasks() if "_store_left" in repr(t.get_coro())), None
        )
        if settling is not None:
            break
        await asyncio.sleep(0.01)
    assert settling is not None
    settling.cancel()  # the process ends meanwhile
    await asyncio.gather(asking, settling, return_exceptions=True)
    assert traced == [(False, "cancelled")]


async def _drain(events: Any) -> None:
    async for _ in events:
        pass
