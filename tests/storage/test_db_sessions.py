"""The database's sessions: autocommit sessions, HNSW settings per connection, pings only
for connections that sat idle."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import OperationalError

from storage.db import Database
from storage.search_sides import hnsw_settings


def count_statements(db: Database) -> list[str]:
    """Every statement SQLAlchemy sends from now on (not the driver's BEGIN/COMMIT)."""
    seen: list[str] = []

    @event.listens_for(db.engine.sync_engine, "before_cursor_execute")
    def _seen(conn, cursor, statement, params, context, many):  # type: ignore[no-untyped-def]
        seen.append(statement)

    return seen


async def test_autocommit_commits_each_statement_a_transaction_holds_one_snapshot(
    db: Database,
) -> None:
    # now() is the transaction's start: the same across a transaction's statements, new
    # for each statement in autocommit (no BEGIN … COMMIT around them)
    async with db.autocommit() as session:
        first = await session.scalar(text("SELECT now()"))
        await asyncio.sleep(0.01)
        second = await session.scalar(text("SELECT now()"))
        open_tx = await session.scalar(text("SELECT txid_current_if_assigned()"))
    assert second > first and open_tx is None
    async with db.transaction() as session:
        first = await session.scalar(text("SELECT now()"))
        await asyncio.sleep(0.01)
        assert await session.scalar(text("SELECT now()")) == first


async def test_a_write_in_autocommit_is_kept_without_a_commit(db: Database) -> None:
    async with db.autocommit() as session:
        await session.execute(
            text("INSERT INTO chat_state (platform, key, value) VALUES ('t', 'k', 'v')")
        )
    async with db.autocommit() as session:  # the session closed without commit(): still there
        assert await session.scalar(text("SELECT value FROM chat_state WHERE key = 'k'")) == "v"


async def test_hnsw_settings_are_set_once_per_autocommit_connection(db: Database) -> None:
    small = Database.connect(db.engine.url.render_as_string(hide_password=False), pool_size=1)
    try:
        seen = count_statements(small)
        async with small.autocommit() as session:
            before = len(seen)
            await hnsw_settings(session, 40, filtered=False)  # pgvector's defaults: nothing
            assert len(seen) == before
            await hnsw_settings(session, 100, filtered=True)
            # set before pgvector is loaded in this backend, kept once it is
            await session.execute(text("SELECT '[1,2]'::vector <=> '[2,1]'::vector"))
            assert await session.scalar(text("SHOW hnsw.ef_search")) == "100"
            assert await session.scalar(text("SHOW hnsw.iterative_scan")) == "relaxed_order"
        async with small.autocommit() as session:  # the same connection: nothing to send
            before = len(seen)
            await hnsw_settings(session, 100, filtered=True)
            assert len(seen) == before
            await hnsw_settings(session, 40, filtered=False)  # back to the server's own
            assert len(seen) == before + 1
            assert await session.scalar(text("SHOW hnsw.ef_search")) == "40"
            assert await session.scalar(text("SHOW hnsw.iterative_scan")) == "off"
    finally:
        await small.dispose()


async def test_an_operators_own_ef_search_still_applies_to_unfiltered_searches(
    db: Database,
) -> None:
    url = db.engine.url.render_as_string(hide_password=False)
    name = db.engine.url.database
    async with db.autocommit() as session:
        await session.execute(text(f'ALTER DATABASE "{name}" SET hnsw.ef_search = 77'))
    small = Database.connect(url, pool_size=1)
    try:
        async with small.autocommit() as session:
            await hnsw_settings(session, 100, filtered=False)
            await hnsw_settings(session, 40, filtered=False)
            assert await session.scalar(text("SHOW hnsw.ef_search")) == "77"
    finally:
        await small.dispose()
        async with db.autocommit() as session:
            await session.execute(text(f'ALTER DATABASE "{name}" RESET hnsw.ef_search'))


async def test_hnsw_settings_in_a_transaction_end_with_it(db: Database) -> None:
    async with db.transaction() as session:
        await hnsw_settings(session, 90, filtered=True)
        assert await session.scalar(text("SHOW hnsw.ef_search")) == "90"
        connection = await session.connection()
        assert "hnsw" not in connection.info  # nothing remembered: SET LOCAL ends here
    async with db.transaction() as session:
        assert await session.scalar(text("SHOW hnsw.ef_search")) != "90"


async def _backend(db: Database) -> int:
    async with db.autocommit() as session:
        return int(await session.scalar(text("SELECT pg_backend_pid()")))


async def _terminate(db: Database, pid: int) -> None:
    async with db.autocommit() as session:
        await session.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})


async def test_a_connection_idle_past_the_ping_window_is_checked_and_replaced(
    db: Database,
) -> None:
    """A server restart or an idle timeout kills connections that sit in the pool: the
    next user after a quiet second gets a live one, as with a ping on every checkout."""
    victim = Database.connect(db.engine.url.render_as_string(hide_password=False), pool_size=1)
    try:
        dead = await _backend(victim)
        await _terminate(db, dead)
        await asyncio.sleep(1.2)
        assert await _backend(victim) != dead  # no error: pinged, dropped, reopened
    finally:
        await victim.dispose()


async def test_a_connection_used_moments_ago_is_not_pinged(db: Database) -> None:
    """Under load a connection goes straight back out: no ping round trip. One that broke
    in that second fails its statement once, and the pool starts afresh."""
    victim = Database.connect(db.engine.url.render_as_string(hide_password=False), pool_size=1)
    pings: list[object] = []
    real_ping = victim.engine.sync_engine.dialect.do_ping

    def counted(dbapi_connection: DBAPIConnection) -> bool:
        pings.append(dbapi_connection)
        return real_ping(dbapi_connection)

    victim.engine.sync_engine.dialect.do_ping = counted  # type: ignore[method-assign]
    try:
        dead = await _backend(victim)
        for _ in range(5):
            assert await _backend(victim) == dead
        assert pings == []
        await _terminate(db, dead)
        with pytest.raises(OperationalError):
            await _backend(victim)
        assert await _backend(victim) != dead
    finally:
        await victim.dispose()
