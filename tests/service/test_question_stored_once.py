"""A turn's question is stored once on real Postgres, even when the turn is cancelled
while its answer's COMMIT is on its way and that COMMIT lands."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from bot.turn.service import AnswerService
from graph.context import GraphContext
from storage.db import Database
from storage.repositories import conversations as conv_repo
from storage.search import HybridSearcher
from tests.support.stopping import stop_then_leave


async def _questions(db: Database) -> list[tuple[str, bool]]:
    async with db.sessions() as s:
        rows = await s.execute(
            text("SELECT trace_id, blocked FROM messages WHERE role = 'user' ORDER BY id")
        )
        return [(r[0], r[1]) for r in rows]


async def test_a_turn_cancelled_as_its_answer_commits_keeps_one_question(
    db: Database,
    searcher: HybridSearcher,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = AnswerService(db, GraphContext(searcher=searcher))
    store = service._turns.answered

    async def committed_then_cancelled(*args: Any, **kwargs: Any) -> int:
        await store(*args, **kwargs)  # the COMMIT landed ...
        raise asyncio.CancelledError  # ... and the cancellation arrived with its reply

    monkeypatch.setattr(service._turns, "answered", committed_then_cancelled)
    with pytest.raises(asyncio.CancelledError):
        async for _ in service.stream("When does the library open?", conversation="c1"):
            pass
    questions = await _questions(db)
    assert len(questions) == 1 and questions[0][1] is False  # the answered one, once
    assert "could not store the unfinished turn" not in caplog.text  # found, not failed
    async with db.sessions() as s:
        answers = (
            await s.execute(text("SELECT count(*) FROM messages WHERE role = 'assistant'"))
        ).scalar_one()
    assert answers == 1


async def test_an_unfinished_question_waits_for_the_turns_own_store(db: Database) -> None:
    async with db.autocommit() as session:
        conv, _ = await conv_repo.with_history(session, "telegram", "9:0", "u1", 4)
    question = {"content": "fee?", "trace_id": "t-1", "details": {"user": "p1"}}
    answer = {"content": "1,300 dollars.", "trace_id": "t-1"}
    async with db.transaction() as held:  # the turn's store, its COMMIT not yet sent
        await conv_repo.add_turn(held, conv, question, answer)

        async def unfinished() -> bool:
            async with db.transaction() as session:
                return await conv_repo.add_unfinished_question(
                    session, conv, "t-1", "fee?", blocked=True, details={"error": "cancelled"}
                )

        late = asyncio.create_task(unfinished())
        for _ in range(200):  # it waits for the held transaction (the unique index)
            async with db.sessions() as s:
                waiting = (
                    await s.execute(
                        text(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type ="
                            " 'Lock' AND datname = current_database()"
                        )
                    )
                ).scalar_one()
            if waiting:
                break
            await asyncio.sleep(0.025)
        assert waiting and not late.done()
    assert await asyncio.wait_for(late, 10) is False
    assert await _questions(db) == [("t-1", False)]


async def test_an_unfinished_question_is_stored_when_the_turns_store_rolled_back(
    db: Database,
) -> None:
    async with db.autocommit() as session:
        conv, _ = await conv_repo.with_history(session, "telegram", "9:1", "u1", 4)
    with pytest.raises(RuntimeError):
        async with db.transaction() as held:
            await conv_repo.add_turn(
                held, conv, {"content": "fee?", "trace_id": "t-2"}, {"content": "x"}
            )
            raise RuntimeError("cancelled before the COMMIT")
    async with db.transaction() as session:
        assert await conv_repo.add_unfinished_question(
            session, conv, "t-2", "fee?", blocked=True, details={"error": "cancelled"}
        )
    assert await _questions(db) == [("t-2", True)]


async def test_the_unfinished_question_insert_holds_on_every_run_of_a_connection(
    db: Database,
) -> None:
    # a prepared statement's generic plan must still find the partial unique index
    async with db.autocommit() as session:
        conv, _ = await conv_repo.with_history(session, "telegram", "9:2", "u1", 4)
    async with db.transaction() as session:
        await session.execute(text("SET LOCAL plan_cache_mode = force_generic_plan"))
        fields = {"blocked": True, "details": {"error": "cancelled"}}
        for n in range(12):
            trace = f"t{n}"
            assert await conv_repo.add_unfinished_question(session, conv, trace, "q", **fields)
            assert not await conv_repo.add_unfinished_question(session, conv, trace, "q", **fields)
    assert len(await _questions(db)) == 12


async def test_a_stopped_answer_still_storing_when_its_caller_goes_is_kept_whole(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = AnswerService(db, GraphContext(searcher=searcher))
    unfinished: list[str] = []
    store_failed = service._turns.unfinished

    async def spied(conv_id: int, state: Any, trace_id: str, error: str) -> None:
        unfinished.append(error)
        await store_failed(conv_id, state, trace_id, error)

    monkeypatch.setattr(service._turns, "unfinished", spied)
    # the asker presses Stop, then goes away while the stopped answer is being stored
    asking, go_on = await stop_then_leave(
        service, monkeypatch, "When does the library open?", "c2", service._turns.answered
    )
    await asyncio.sleep(0.1)
    go_on.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asking, 10)
    assert unfinished == []  # never stored as unfinished: the answer's store went through
    assert [blocked for _, blocked in await _questions(db)] == [False]
    async with db.sessions() as s:
        outcome = (
            await s.execute(
                text("SELECT details->'trace'->>'outcome' FROM messages WHERE role = 'assistant'")
            )
        ).all()
    assert len(outcome) == 1


async def test_a_turn_cancelled_twice_while_its_stopped_answer_fails_is_still_kept(
    db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = AnswerService(db, GraphContext(searcher=searcher))

    async def failing_store(*args: Any, **kwargs: Any) -> int:
        raise ConnectionError("the database went away")

    # Stop, then the caller goes while the stopped answer is being stored
    asking, go_on = await stop_then_leave(
        service, monkeypatch, "When does the library open?", "c3", failing_store
    )
    await asyncio.sleep(0.05)
    asking.cancel()  # and a worker quitting cancels the turn again while it waits
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asking, 10)
    go_on.set()  # the stopped answer's store fails: the question is kept as unfinished
    for _ in range(200):
        if await _questions(db):
            break
        await asyncio.sleep(0.025)
    assert [blocked for _, blocked in await _questions(db)] == [True]
