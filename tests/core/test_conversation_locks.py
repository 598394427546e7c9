"""Conversation locks across workers, held on one connection per process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import event, text

from bot.core.delivery.conversation_locks import ConversationLocks
from storage.db import Database
from storage.session_locks import SessionLocks

KEY = 0x7262


@pytest.fixture
async def workers(database_url: str) -> AsyncIterator[tuple[SessionLocks, SessionLocks]]:
    """The conversation locks of two workers (two engines) on one database."""
    first, second = Database.connect(database_url), Database.connect(database_url)
    a, b = SessionLocks(first), SessionLocks(second)
    yield a, b
    await a.close()
    await b.close()
    await first.dispose()
    await second.dispose()


async def _backend_pid(locks: SessionLocks) -> int:
    conn = locks._conn  # the lock connection, to cut it as a network failure would
    assert conn is not None
    return int(await conn.scalar(text("SELECT pg_backend_pid()")))


async def test_a_lock_one_worker_holds_waits_for_it_on_another(
    workers: tuple[SessionLocks, SessionLocks],
) -> None:
    a, b = workers
    await a.acquire(KEY, "telegram:42")
    waiting = asyncio.create_task(b.acquire(KEY, "telegram:42"))
    await asyncio.sleep(0.3)
    assert not waiting.done()  # the other worker's turn of this conversation waits
    await b.acquire(KEY, "telegram:43")  # another conversation does not
    await a.release(KEY, "telegram:42")
    await asyncio.wait_for(waiting, 1.0)


async def test_a_lost_lock_connection_frees_its_locks_and_a_new_one_is_taken(
    workers: tuple[SessionLocks, SessionLocks], db: Database
) -> None:
    a, b = workers
    await a.acquire(KEY, "slack:C1")
    async with db.sessions() as admin:  # cut it, as a network failure would
        await admin.execute(text("SELECT pg_terminate_backend(:p)"), {"p": await _backend_pid(a)})
    await asyncio.wait_for(b.acquire(KEY, "slack:C1"), 2.0)  # Postgres let go of it
    await a.release(KEY, "slack:C1")  # no error: it went with the connection
    await a.acquire(KEY, "slack:C2")  # on a new connection
    waiting = asyncio.create_task(b.acquire(KEY, "slack:C2"))
    await asyncio.sleep(0.2)
    assert not waiting.done()
    await a.release(KEY, "slack:C2")
    await asyncio.wait_for(waiting, 1.0)


async def test_turns_waiting_for_the_model_hold_no_pooled_connection(database_url: str) -> None:
    # a pool of 1 (+2 overflow): with a connection per turn, 12 turns could not run at once
    small = Database.connect(database_url, pool_size=1)
    locks = ConversationLocks(small, max_concurrent=12)
    inside = asyncio.Barrier(13)

    async def turn(n: int) -> None:
        async with locks.hold("telegram", f"chat-{n}"):
            await asyncio.wait_for(inside.wait(), 5)  # every turn is inside at once

    try:
        runs = [asyncio.create_task(turn(n)) for n in range(12)]
        await asyncio.wait_for(inside.wait(), 5)
        async with small.sessions() as session:  # and the pool still serves the work
            assert (await session.execute(text("SELECT 1"))).scalar_one() == 1
        await asyncio.gather(*runs)
    finally:
        await locks.close()
        await small.dispose()


async def test_a_cancelled_wait_never_costs_the_other_turns_their_locks(
    workers: tuple[SessionLocks, SessionLocks],
) -> None:
    a, b = workers
    await a.acquire(KEY, "telegram:running")
    for n in range(40):  # askers pressing Stop while their turn waits for its lock
        waiting = asyncio.create_task(a.acquire(KEY, f"telegram:queued-{n}"))
        await asyncio.sleep(0.0005 * (n % 6))
        waiting.cancel()
        (outcome,) = await asyncio.gather(waiting, return_exceptions=True)
        if not isinstance(outcome, asyncio.CancelledError):  # it got there first: the
            await a.release(KEY, f"telegram:queued-{n}")  # turn ran, and lets go after
    other = asyncio.create_task(b.acquire(KEY, "telegram:running"))
    await asyncio.sleep(0.3)
    assert not other.done()  # the running turn still holds its conversation
    for n in range(40):  # and no cancelled wait kept a lock for a turn that never ran
        await asyncio.wait_for(b.acquire(KEY, f"telegram:queued-{n}"), 1.0)
    other.cancel()
    await asyncio.gather(other, return_exceptions=True)


async def test_locks_asked_at_once_share_round_trips(database_url: str) -> None:
    # twenty questions arriving together: their locks go in one or two queries, not twenty
    # queued one after another on the lock connection (the last waiting for all others)
    db = Database.connect(database_url)
    locks = SessionLocks(db)
    sent: list[str] = []
    event.listen(
        db.engine.sync_engine,
        "before_cursor_execute",
        lambda _conn, _cursor, statement, *_: sent.append(statement),
    )
    try:
        await asyncio.gather(*(locks.acquire(KEY, f"telegram:{n}") for n in range(20)))
        assert len([s for s in sent if "advisory" in s]) <= 2
        async with db.sessions() as other:  # each of them is really held
            held = await other.scalar(
                text("SELECT pg_try_advisory_xact_lock(:c, hashtext('telegram:7'))"), {"c": KEY}
            )
            assert held is False
        sent.clear()
        await asyncio.gather(*(locks.release(KEY, f"telegram:{n}") for n in range(20)))
        assert len([s for s in sent if "advisory" in s]) <= 2  # let go of in a batch too
        async with db.sessions() as other:
            free = await other.scalar(
                text("SELECT pg_try_advisory_xact_lock(:c, hashtext('telegram:7'))"), {"c": KEY}
            )
            assert free is True
    finally:
        await locks.close()
        await db.dispose()


async def test_closing_answers_every_waiter_even_when_the_close_is_cancelled(
    database_url: str,
) -> None:
    db = Database.connect(database_url)
    for cancel_close in (False, True):
        locks = SessionLocks(db)
        waits = [asyncio.create_task(locks.acquire(KEY, f"slack:C{n}")) for n in range(5)]
        await asyncio.sleep(0)  # their batch is on its way
        closing = asyncio.create_task(locks.close())
        await asyncio.sleep(0)
        if cancel_close:  # a shutdown cut short: the waiters must still hear back
            closing.cancel()
        _, pending = await asyncio.wait(waits, timeout=2.0)
        assert not pending  # taken or refused, none left hanging
        await asyncio.gather(*waits, return_exceptions=True)
        await asyncio.gather(closing, return_exceptions=True)
        await locks.close()
        with pytest.raises(RuntimeError, match="closed"):
            await locks.acquire(KEY, "slack:C9")
    with pytest.raises(ValueError, match="NUL"):  # refused alone, not in a batch with others
        await SessionLocks(db).acquire(KEY, "telegram:\x00")
    await db.dispose()
