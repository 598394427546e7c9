"""How a turn ends decides what is stored, what is traced and what the asker sees: one
row per way of ending, each driving the real AnswerService on real Postgres.

Every row also holds that the trace is finished once (a later finish is ignored, and
not counted), that nothing is left running afterwards, and that storing a question
as unfinished never fails (found the answer's COMMIT instead, when it landed).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text

from bot.telemetry import TurnTrace
from bot.turn.run import TurnRun
from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.events import ErrorReply, FinalAnswer, TurnEvent
from storage.db import Database
from storage.search import HybridSearcher
from tests.support.stopping import stop_then_leave

QUESTION = "When does the library open?"
CONV = "ending"
GONE = "nothing: the caller went"  # what an asker who went away sees
USER, ANSWER = ("user", False, None), ("assistant", False, None)
Ends = Callable[[AnswerService, pytest.MonkeyPatch], Awaitable[str]]


def _seen(events: list[TurnEvent]) -> str:
    """What the asker was shown last: the answer (stopped or not), or the error reply."""
    last = events[-1]
    if isinstance(last, FinalAnswer):
        assert not any(isinstance(e, ErrorReply) for e in events)
        return "stopped answer" if last.result.outcome == "stopped" else "answer"
    assert isinstance(last, ErrorReply)
    assert not any(isinstance(e, FinalAnswer) for e in events)
    return f"error: {last.error}"


async def _cancelled(asking: asyncio.Task[None]) -> str:
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asking, 10)
    return GONE


async def _drain(events: Any) -> None:
    async for _ in events:
        pass


def _broken_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("the turn failed")

    monkeypatch.setattr(TurnRun, "result", broken)


async def _failing_store(*args: Any, **kwargs: Any) -> int:
    raise ConnectionError("the database went away")


def _task_running(name: str) -> asyncio.Task[Any] | None:
    return next((t for t in asyncio.all_tasks() if name in repr(t.get_coro())), None)


async def _waited_for(name: str) -> asyncio.Task[Any]:
    for _ in range(200):
        if (task := _task_running(name)) is not None:
            return task
        await asyncio.sleep(0.01)
    raise AssertionError(f"no task {name} ran")


# how the turn ends --------------------------------------------------------------------


async def runs_to_its_end(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    return _seen([e async for e in service.stream(QUESTION, conversation=CONV)])


async def stop_pressed(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    stop, events = asyncio.Event(), []
    async for event in service.stream(QUESTION, conversation=CONV, stop=stop):
        stop.set()  # the asker presses Stop at the first step
        events.append(event)
    return _seen(events)


async def graph_fails(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    _broken_graph(mp)
    return await runs_to_its_end(service, mp)


async def store_fails(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    mp.setattr(service._turns, "answered", _failing_store)  # the database went away
    return await runs_to_its_end(service, mp)


async def stopped_and_store_fails(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    # told, as for any failed turn (not an exception the adapter would have to guess at)
    mp.setattr(service._turns, "answered", _failing_store)
    return await stop_pressed(service, mp)


async def caller_closes_mid_graph(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    events = service.stream(QUESTION, conversation=CONV)
    await anext(events)
    await events.aclose()  # the adapter went away mid-turn
    return GONE


async def caller_cancelled_mid_graph(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    searching = asyncio.Event()

    async def hanging_search(*args: Any, **kwargs: Any) -> Any:
        searching.set()
        await asyncio.Event().wait()  # the turn is running when its caller goes

    mp.setattr(service._context.searcher, "search", hanging_search)
    asking = asyncio.create_task(_drain(service.stream(QUESTION, conversation=CONV)))
    await asyncio.wait_for(searching.wait(), 30)
    asking.cancel()
    return await _cancelled(asking)


async def cancelled_as_its_answer_commits(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    store = service._turns.answered

    async def committed_then_cancelled(*args: Any, **kwargs: Any) -> int:
        await store(*args, **kwargs)  # the COMMIT landed ...
        raise asyncio.CancelledError  # ... and the cancellation arrived with its reply

    mp.setattr(service._turns, "answered", committed_then_cancelled)
    with pytest.raises(asyncio.CancelledError):
        await _drain(service.stream(QUESTION, conversation=CONV))
    return GONE


async def fails_and_caller_goes_while_kept(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    _broken_graph(mp)
    store_failed, reached, go_on = service._turns.unfinished, asyncio.Event(), asyncio.Event()

    async def slow(*args: Any, **kwargs: Any) -> None:
        reached.set()
        await go_on.wait()
        await store_failed(*args, **kwargs)

    mp.setattr(service._turns, "unfinished", slow)
    asking = asyncio.create_task(_drain(service.stream(QUESTION, conversation=CONV)))
    await asyncio.wait_for(reached.wait(), 10)
    asking.cancel()  # the caller goes while the failed turn is being stored
    seen = await _cancelled(asking)
    go_on.set()
    return seen


async def stopped_then_gone_and_kept(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    # Stop, then the caller goes while the stopped answer is stored; the store goes through
    asking, go_on = await stop_then_leave(service, mp, QUESTION, CONV, service._turns.answered)
    await asyncio.sleep(0.1)
    go_on.set()
    return await _cancelled(asking)


async def stopped_then_gone_twice_and_store_fails(
    service: AnswerService, mp: pytest.MonkeyPatch
) -> str:
    asking, go_on = await stop_then_leave(service, mp, QUESTION, CONV, _failing_store)
    await asyncio.sleep(0.05)
    asking.cancel()  # and a worker quitting cancels the turn again while it waits
    seen = await _cancelled(asking)
    go_on.set()  # the stopped answer's store fails: the question is kept as unfinished
    return seen


async def stopped_then_gone_and_store_cancelled(
    service: AnswerService, mp: pytest.MonkeyPatch
) -> str:
    asking, _ = await stop_then_leave(service, mp, QUESTION, CONV)  # the store never ends
    (await _waited_for("held_store")).cancel()  # the store alone is cancelled
    return await _cancelled(asking)


async def stopped_then_gone_and_settling_cut(service: AnswerService, mp: pytest.MonkeyPatch) -> str:
    """The process ending cancels the task that waits for a stopped answer's store:
    the trace still gets its outcome, and nothing is written after it."""
    asking, _ = await stop_then_leave(service, mp, QUESTION, CONV)  # the store never ends
    settling = await _waited_for("_stopped_answer_left")
    settling.cancel()  # the process ends meanwhile
    await asyncio.gather(asking, settling, return_exceptions=True)
    assert not await service.settle(0.1)  # the store left over is stopped by the close
    return GONE


@dataclass(frozen=True)
class Row:
    """How a turn ends → what is stored, what is traced, what the asker sees."""

    ends: Ends
    stored: list[tuple[str, bool, str | None]]  # (role, blocked, an unfinished one's error)
    traced: list[tuple[bool, str | None]]  # each finished trace: (with an answer, error)
    seen: str
    kept_unfinished: list[str]  # the unfinished-question stores asked for (their error)


ROWS = [
    Row(runs_to_its_end, [USER, ANSWER], [(True, None)], "answer", []),
    Row(stop_pressed, [USER, ANSWER], [(True, None)], "stopped answer", []),
    Row(
        graph_fails,
        [("user", True, "ValueError")],
        [(False, "ValueError")],
        "error: ValueError",
        ["ValueError"],
    ),
    # once: not the answer, then the error
    Row(
        store_fails,
        [("user", True, "ConnectionError")],
        [(False, "ConnectionError")],
        "error: ConnectionError",
        ["ConnectionError"],
    ),
    # not "cancelled": the caller stayed
    Row(
        stopped_and_store_fails,
        [("user", True, "ConnectionError")],
        [(False, "ConnectionError")],
        "error: ConnectionError",
        ["ConnectionError"],
    ),
    Row(
        caller_closes_mid_graph,
        [("user", True, "cancelled")],
        [(False, "cancelled")],
        GONE,
        ["cancelled"],
    ),
    Row(
        caller_cancelled_mid_graph,
        [("user", True, "cancelled")],
        [(False, "cancelled")],
        GONE,
        ["cancelled"],
    ),
    # the answered question once: the unfinished one found the COMMIT (not failed)
    Row(
        cancelled_as_its_answer_commits, [USER, ANSWER], [(False, "cancelled")], GONE, ["cancelled"]
    ),
    # not then again as "cancelled"; kept once, with the real error
    Row(
        fails_and_caller_goes_while_kept,
        [("user", True, "ValueError")],
        [(False, "ValueError")],
        GONE,
        ["ValueError"],
    ),
    # never stored as unfinished: the answer's store went through; traced as answered
    Row(stopped_then_gone_and_kept, [USER, ANSWER], [(True, None)], GONE, []),
    Row(
        stopped_then_gone_twice_and_store_fails,
        [("user", True, "ConnectionError")],
        [(False, "ConnectionError")],
        GONE,
        ["ConnectionError"],
    ),
    Row(
        stopped_then_gone_and_store_cancelled,
        [("user", True, "cancelled")],
        [(False, "cancelled")],
        GONE,
        ["cancelled"],
    ),
    Row(stopped_then_gone_and_settling_cut, [], [(False, "cancelled")], GONE, []),
]


async def _stored(db: Database) -> list[tuple[str, bool, str | None]]:
    async with db.sessions() as s:
        rows = await s.execute(
            text("SELECT role, blocked, details->>'error' FROM messages ORDER BY id")
        )
        return [(r[0], r[1], r[2]) for r in rows]


def _traced(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, str | None]]:
    """Each trace finished: (an answer given, the error); a later finish does nothing."""
    finished: list[tuple[bool, str | None]] = []
    finish = TurnTrace.finish

    def spied(
        trace: TurnTrace, platform: str, summary: Any, answer: Any, error: Any = None
    ) -> None:
        if not trace.finished:
            finished.append((answer is not None, error))
        finish(trace, platform, summary, answer, error)

    monkeypatch.setattr(TurnTrace, "finish", spied)
    return finished


def _kept_unfinished(service: AnswerService, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []
    store = service._turns.unfinished

    async def spied(conv_id: int, state: Any, trace_id: str, error: str) -> None:
        asked.append(error)
        await store(conv_id, state, trace_id, error)

    monkeypatch.setattr(service._turns, "unfinished", spied)
    return asked


@pytest.mark.parametrize("row", ROWS, ids=[row.ends.__name__ for row in ROWS])
async def test_how_a_turn_ends_decides_what_is_stored_traced_and_seen(
    row: Row,
    db: Database,
    searcher: HybridSearcher,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = AnswerService(db, GraphContext(searcher=searcher))
    traced = _traced(monkeypatch)
    kept = _kept_unfinished(service, monkeypatch)
    seen = await row.ends(service, monkeypatch)
    assert await service.settle(10)  # what the turn left running ended
    assert not service._turns.pending
    assert seen == row.seen
    assert traced == row.traced
    assert kept == row.kept_unfinished
    assert await _stored(db) == row.stored
    assert "could not store the unfinished turn" not in caplog.text
