"""A process closing keeps what its cancelled turns were still storing (real Postgres,
the runtime as `ragbot serve` and each turn worker open it)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from bot.app import runtime as runtime_module
from bot.app.runtime import open_runtime
from bot.app.turn_processes import CLOSE_S
from bot.telemetry.tracer import SHUTDOWN_WAIT_S, TurnTrace
from bot.turn.ending import Ending, Event, State
from bot.turn.run import TurnRun
from bot.turn.service import AnswerService
from bot.turn.settling import CANCELLED_STORE_S, TurnRecord, TurnStore
from graph.context import GraphContext
from storage.db import Database
from storage.search import HybridSearcher
from tests.support.core_fixtures import settings_for_tests
from tests.support.stopping import stop_then_leave

QUESTION = "When does the library open?"


async def _stored(db: Database, conversation: str) -> list[tuple[str, bool, str | None]]:
    """The conversation's messages: (role, blocked, the error of an unfinished question)."""
    async with db.sessions() as s:
        rows = await s.execute(
            text(
                "SELECT m.role, m.blocked, m.details->>'error' FROM messages m JOIN"
                " conversations c ON c.id = m.conversation_id WHERE c.external_id = :c"
                " ORDER BY m.id"
            ),
            {"c": conversation},
        )
        return [(r[0], r[1], r[2]) for r in rows]


def _held_until_the_close(
    service: AnswerService, monkeypatch: pytest.MonkeyPatch, name: str
) -> tuple[asyncio.Event, asyncio.Event]:
    """The service's `name` store starts (first event) and then waits until the process
    begins to close (second event, set when the runtime settles its turns)."""
    store, started, closing = getattr(service._turns, name), asyncio.Event(), asyncio.Event()

    async def held(*args: Any, **kwargs: Any) -> Any:
        started.set()
        await closing.wait()
        return await store(*args, **kwargs)

    monkeypatch.setattr(service._turns, name, held)
    settle = service.settle

    async def settling(timeout: float) -> bool:
        closing.set()
        return await settle(timeout)

    monkeypatch.setattr(service, "settle", settling)
    return started, closing


async def _cancelled_twice(asking: asyncio.Task[None], started: asyncio.Event) -> None:
    """The turn worker's way out: the caller's cancel, then (once the turn is storing)
    the cancel of a worker told to quit."""
    asking.cancel()
    await asyncio.wait_for(started.wait(), 10)
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asking, 10)


async def _drain(events: Any) -> None:
    async for _ in events:
        pass


async def test_a_turn_cancelled_twice_keeps_its_question_when_the_process_closes(
    database_url: str, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_runtime(settings_for_tests(DATABASE_URL=database_url)) as rt:
        service = rt.answer_service()
        searching = asyncio.Event()

        async def hanging_search(*args: Any, **kwargs: Any) -> Any:
            searching.set()
            await asyncio.Event().wait()  # the turn is running when its caller goes

        monkeypatch.setattr(rt.searcher, "search", hanging_search)
        started, _ = _held_until_the_close(service, monkeypatch, "unfinished")
        asking = asyncio.create_task(_drain(service.stream(QUESTION, conversation="settle-1")))
        await asyncio.wait_for(searching.wait(), 30)
        await _cancelled_twice(asking, started)
        assert await _stored(db, "settle-1") == []  # the store waits for the close
    # the question is kept as unfinished (out of later history), nothing left running
    assert await _stored(db, "settle-1") == [("user", True, "cancelled")]
    assert not service._turns.pending


async def test_a_stopped_answer_still_storing_is_kept_when_the_process_closes(
    database_url: str, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_runtime(settings_for_tests(DATABASE_URL=database_url)) as rt:
        service = rt.answer_service()
        _, closing = _held_until_the_close(service, monkeypatch, "answered")
        held = service._turns.answered
        # Stop, then the caller goes while the stopped answer is stored; then the quit
        asking, go_on = await stop_then_leave(service, monkeypatch, QUESTION, "settle-2", held)
        go_on.set()  # the hold of stop_then_leave; the close's hold remains
        await asyncio.sleep(0.05)
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asking, 10)
        assert not closing.is_set() and await _stored(db, "settle-2") == []
    assert await _stored(db, "settle-2") == [("user", False, None), ("assistant", False, None)]


async def test_closing_stops_a_store_that_does_not_end_and_says_so(
    database_url: str,
    db: Database,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(runtime_module, "SETTLE_S", 0.2)
    loop = asyncio.get_running_loop()
    async with open_runtime(settings_for_tests(DATABASE_URL=database_url)) as rt:
        service = rt.answer_service()

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise ValueError("the turn failed")

        monkeypatch.setattr(TurnRun, "result", broken)
        started = asyncio.Event()

        async def endless(*args: Any, **kwargs: Any) -> None:
            started.set()
            await asyncio.Event().wait()  # a store that never ends

        monkeypatch.setattr(service._turns, "unfinished", endless)
        asking = asyncio.create_task(_drain(service.stream(QUESTION, conversation="settle-3")))
        await asyncio.wait_for(started.wait(), 30)
        asking.cancel()  # the caller goes while the failed turn's question is stored
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asking, 10)
        closing = loop.time()
    assert loop.time() - closing < 5  # the close went on without it
    assert "stores still running after 0.2 s were stopped" in caplog.text  # and said so
    assert not service._turns.pending  # stopped: nothing touches the closed pool later
    assert await _stored(db, "settle-3") == []


async def test_a_stopped_answer_stopped_at_the_deadline_writes_nothing_after_it(
    database_url: str, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runtime_module, "SETTLE_S", 0.2)
    unfinished: list[str] = []
    async with open_runtime(settings_for_tests(DATABASE_URL=database_url)) as rt:
        service = rt.answer_service()
        store = service._turns.unfinished

        async def spied(conv_id: int, state: Any, trace_id: str, error: str) -> None:
            unfinished.append(error)
            await store(conv_id, state, trace_id, error)

        monkeypatch.setattr(service._turns, "unfinished", spied)
        # Stop, then the caller goes while the stopped answer is stored; the store never ends
        asking, _ = await stop_then_leave(service, monkeypatch, QUESTION, "settle-4")
        await asyncio.sleep(0.05)
        asking.cancel()  # the quit
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asking, 10)
    # the store and its settling task were both cancelled at the deadline: the settling
    # task did not go on to write the question as unfinished while the pool closed
    assert unfinished == []
    assert not service._turns.pending
    assert await _stored(db, "settle-4") == []


async def test_a_close_cut_short_stops_the_stores_it_was_waiting_for(
    db: Database, searcher: HybridSearcher
) -> None:
    service = AnswerService(db, GraphContext(searcher=searcher))
    store = service._turns.in_background(asyncio.Event().wait())  # a store that has not ended
    settling = asyncio.create_task(service.settle(60))
    await asyncio.sleep(0.05)
    settling.cancel()  # a second Ctrl-C while the process closes
    with pytest.raises(asyncio.CancelledError):
        await settling
    await asyncio.wait([store], timeout=5)
    assert store.cancelled()  # not left running while the pool closes


def test_a_quitting_worker_settles_and_flushes_its_traces_before_it_is_killed() -> None:
    # the serving process kills a worker CLOSE_S after "quit"; before that the worker
    # waits for its turns' stores, stops the last ones, and flushes the traces
    assert runtime_module.SETTLE_S + CANCELLED_STORE_S + SHUTDOWN_WAIT_S + 1 <= CLOSE_S


async def _left_storing(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> tuple[Ending, list[str], asyncio.Future[Any], asyncio.Future[Any], asyncio.Task[None]]:
    """A turn whose caller went while its stopped answer was storing (a store that does not
    end): its ending, the unfinished stores asked for, the store, the task that settles
    the turn and the caller's wait for it."""
    store, unfinished = TurnStore(db), []

    async def spied(conv_id: int, state: Any, trace_id: str, error: str) -> None:
        unfinished.append(error)

    monkeypatch.setattr(store, "unfinished", spied)
    storing = store.in_background(asyncio.Event().wait())
    ending = Ending()
    ending.report(Event.STOP)
    ending.report(Event.LEFT)
    turn = TurnRecord(0, "t-left", TurnTrace(), "console", None, {})
    leaving = asyncio.create_task(store.left(turn, ending, storing))
    await asyncio.sleep(0.01)
    (settling,) = {task for task in store._running if task is not storing}
    return ending, unfinished, storing, settling, leaving


async def test_a_settling_cancelled_with_its_store_writes_nothing_after_it(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    ending, unfinished, storing, settling, leaving = await _left_storing(db, monkeypatch)
    # the close cancels both, the store's end seen first: the settling task does not take
    # the store's cancellation for the turn's outcome (Task.cancelling())
    storing.cancel()
    settling.cancel()
    await asyncio.gather(storing, settling, leaving, return_exceptions=True)
    assert settling.cancelled() and ending.state is State.CUT and unfinished == []


async def test_a_stopped_answers_store_cancelled_alone_keeps_the_question_as_cancelled(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    ending, unfinished, storing, settling, leaving = await _left_storing(db, monkeypatch)
    storing.cancel()
    await asyncio.gather(storing, settling, leaving, return_exceptions=True)
    assert ending.state is State.GONE and unfinished == ["cancelled"]
