"""Engines, sessions and migrations: the only place that knows how to reach Postgres."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy.exc
from alembic.config import Config
from sqlalchemy import create_engine, event
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import NullPool

from alembic import command
from storage.embedded_postgres import shared_buffers_mb, sqlalchemy_url, start_embedded_server

ALEMBIC_DIR = Path(__file__).resolve().parent.parent / "alembic"
DEFAULT_EMBEDDING_DIM = 512


class DatabaseUnavailableError(RuntimeError):
    """Postgres could not be reached; the message says which URL (without password)."""


# what a call meets when Postgres is down or out of connections (a 503 to a caller, not a bug)
UNAVAILABLE: tuple[type[Exception], ...] = (
    DatabaseUnavailableError,
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    sqlalchemy.exc.TimeoutError,
)


def resolve_database_url(
    database_url: str | None, data_dir: Path, shared_buffers_setting: int | None = 0
) -> tuple[str, Any]:
    """The URL to use, and the embedded server handle when one had to be started.

    `shared_buffers_setting`: EMBEDDED_PG_SHARED_BUFFERS_MB (None: a quarter of
    the memory; 0: the server's own).
    """
    if database_url:
        return driver_url(database_url), None
    server = start_embedded_server(
        data_dir, shared_buffers=shared_buffers_mb(shared_buffers_setting)
    )
    return sqlalchemy_url(server), server


# what managed providers and libpq hand out, for the project's driver (psycopg 3)
_POSTGRES_SCHEMES = ("postgres://", "postgresql://")
DRIVER_SCHEME = "postgresql+psycopg://"


def driver_url(url: str) -> str:
    """`url` with the project's driver: `postgres://` (Heroku, Render, Supabase…) and
    `postgresql://` become `postgresql+psycopg://`; any other scheme is kept as given."""
    stripped = url.strip()
    for scheme in _POSTGRES_SCHEMES:
        if stripped[: len(scheme)].lower() == scheme:
            return DRIVER_SCHEME + stripped[len(scheme) :]
    return stripped


def with_database(url: str, database: str) -> str:
    """The same server URL pointing at another database."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(database=database).render_as_string(hide_password=False)


def alembic_config(url: str, embedding_dim: int = DEFAULT_EMBEDDING_DIM) -> Config:
    """An Alembic config pointed at `url`; the initial migration reads the dimension."""
    cfg = Config()
    cfg.set_main_option("script_location", str(ALEMBIC_DIR))
    cfg.attributes["url"] = url
    cfg.attributes["embedding_dim"] = embedding_dim
    return cfg


# Any constant works; it only has to be the same in every ragbot process.
MIGRATION_LOCK = 0x7261_6762  # "ragb"


def upgrade(url: str, revision: str = "head", embedding_dim: int = DEFAULT_EMBEDDING_DIM) -> None:
    """Apply migrations up to `revision` (blocking; call before the event loop work).

    Several workers starting at once would run the same migration twice; a
    session advisory lock makes the others wait and then find nothing to do.
    """
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(f"SELECT pg_advisory_lock({MIGRATION_LOCK})")
            conn.commit()
            try:
                cfg = alembic_config(url, embedding_dim)
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
                conn.commit()
            finally:
                conn.rollback()
                conn.exec_driver_sql(f"SELECT pg_advisory_unlock({MIGRATION_LOCK})")
                conn.commit()
    finally:
        engine.dispose()


def head_revision() -> str | None:
    """The newest migration this code ships."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config("")).get_current_head()


def downgrade(url: str, revision: str) -> None:
    """Revert migrations down to `revision` ("base" drops everything)."""
    command.downgrade(alembic_config(url), revision)


def current_revision(url: str) -> str | None:
    """The revision the database is at, or None for an empty database."""
    from alembic.runtime.migration import MigrationContext

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


# A pooled connection idle this long is pinged before it is handed out (a restarted
# or failed-over server leaves every idle connection dead). One given back moments
# ago is not: under load that ping was a round trip on every checkout. A connection
# that broke within that second fails its statement once; SQLAlchemy then marks
# every older connection of the pool for replacement, as a failed ping does.
PING_IDLE_AFTER_S = 1.0


def ping_idle_connections(engine: AsyncEngine, idle_after_s: float = PING_IDLE_AFTER_S) -> None:
    """Ping a connection on checkout only when it has been idle `idle_after_s` or more."""
    pool, dialect = engine.sync_engine.pool, engine.sync_engine.dialect

    @event.listens_for(pool, "checkin")
    def _given_back(dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(pool, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        since = record.info.pop("idle_since", None)
        if since is None or time.monotonic() - since < idle_after_s:
            return  # new, or given back just now
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as exc:
            if dialect.is_disconnect(exc, dbapi_connection, None):
                # the pool replaces this connection and every older one (they are
                # likely dead too: a restart, a failover), then opens a new one
                raise sqlalchemy.exc.InvalidatePoolError() from exc
            raise


@dataclass
class Database:
    """An async engine and its session factories.

    `transaction()` is a unit of work (BEGIN … COMMIT). `autocommit()` runs each
    statement on its own, in autocommit: no BEGIN and no COMMIT round trip,
    which a turn's reads (history, search) and single-statement writes (one
    INSERT, one UPDATE … RETURNING) do not need — a statement is atomic on its
    own, and READ COMMITTED gives each statement its own snapshot either way.
    """

    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    max_connections: int = 15  # pool size + overflow: what may be open at once
    autocommit_sessions: async_sessionmaker[AsyncSession] = field(init=False)

    def __post_init__(self) -> None:
        self.autocommit_sessions = async_sessionmaker(
            self.engine.execution_options(isolation_level="AUTOCOMMIT"), expire_on_commit=False
        )

    @classmethod
    def connect(cls, url: str, pool_size: int = 5) -> Database:
        """Build the engine (lazy: no connection is made until first use)."""
        engine = create_async_engine(
            url,
            pool_size=pool_size,
            max_overflow=2 * pool_size,
            # the connection given back last is handed out first: under load a few stay
            # warm (and need no ping), the others idle
            pool_use_lifo=True,
            # a database error's text must not quote what users sent (it reaches logs)
            hide_parameters=True,
        )
        ping_idle_connections(engine)
        return cls(engine, async_sessionmaker(engine, expire_on_commit=False), 3 * pool_size)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session inside one transaction: committed on success, rolled back on error."""
        async with self.sessions() as session, session.begin():
            yield session

    @asynccontextmanager
    async def autocommit(self) -> AsyncIterator[AsyncSession]:
        """A session whose every statement commits on its own (autocommit).

        For reads and for writes of one statement; anything that must stand or
        fall together belongs in `transaction()`.
        """
        async with self.autocommit_sessions() as session:
            yield session

    async def warm(self, connections: int) -> None:
        """Open `connections` of the pool now, hold them together, and give them back.

        A burst right after a start (twenty people asking at once) would otherwise open
        them one request at a time, each paying the connection's start-up in its reply.
        """
        async with AsyncExitStack() as held:
            for _ in range(connections):
                await held.enter_async_context(self.engine.connect())

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()
