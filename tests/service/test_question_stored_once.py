"""A turn's question is stored once on real Postgres, even when the turn is cancelled
while its answer's COMMIT is on its way and that COMMIT lands: the unfinished question
waits for the turn's own store (the turn's side: tests/service/test_turn_endings.py)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from storage.db import Database
from storage.repositories import conversations as conv_repo


async def _questions(db: Database) -> list[tuple[str, bool]]:
    async with db.sessions() as s:
        rows = await s.execute(
            text("SELECT trace_id, blocked FROM messages WHERE role = 'user' ORDER BY id")
        )
        return [(r[0], r[1]) for r in rows]


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
