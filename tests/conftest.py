"""Fixtures: one embedded Postgres per test session, a throwaway database, clean tables per
test and after each file."""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from storage import db as dbmod
from storage.db import Database
from storage.embedded_postgres import sqlalchemy_url, start_embedded_server
from storage.embeddings import Embedder, build_embedder
from storage.index import check_embedder
from storage.ingestion import IngestionService, IngestOptions
from storage.search import HybridSearcher
from storage.upload_policy import UploadPolicy

TABLES = ", ".join(
    [
        "answer_memory",
        "answer_memory_askers",
        "gap_reasks",
        "admin_sessions",
        "api_keys",
        "console_answers",
        "audit_log",
        "chat_state",
        "instance_secrets",
        "rate_limits",
        "reindex_vectors",
        "uploads",
        "procrastinate_events",
        "procrastinate_periodic_defers",
        "procrastinate_jobs",
        "procrastinate_workers",
        "feedback",
        "messages",
        "conversations",
        "processed_events",
        "outbox",
        "forms",
        "source_items",
        "sources",
        "keyword_terms",
        "chunk_terms",
        "chunks",
        "documents",
    ]
)
# what empties the session database (the index's counts with its chunks)
EMPTYING = (
    f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE",
    "UPDATE index_meta SET chunk_count = 0, token_total = 0",
)


def empty_database(url: str) -> None:
    """Empty the database at `url` (blocking); a lock held by a connection left open fails
    it after 30 s, said, rather than hanging the test process."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text("SET lock_timeout = '30s'"))
            for statement in EMPTYING:
                conn.execute(text(statement))
    finally:
        engine.dispose()


# Fixtures that start real processes (`ragbot serve` and `worker`, a browser): their files
# take the longest, mostly waiting on those processes
PROCESS_FIXTURES = frozenset({"start", "served_api", "browser", "cli_process"})
# what a test module calls to start `ragbot serve` itself (a module fixture of its own)
PROCESS_STARTERS = ("serving_api", "launch")


def _starts_processes(item: pytest.Item) -> bool:
    """Whether a test starts real processes: through a fixture, or its module's own."""
    if PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    module = getattr(item, "module", None)
    return any(callable(getattr(module, name, None)) for name in PROCESS_STARTERS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files that start real processes first, then the others by number of tests.

    The test processes take whole files (scripts/test.sh: `--dist loadfile`, with
    `--no-loadscope-reorder` so this order holds); a long file taken last keeps
    one process busy alone while the others have finished.
    """
    tests_in = Counter(item.path for item in items)
    starting = {item.path for item in items if _starts_processes(item)}
    # a stable sort: each file's tests stay together and in their order
    items.sort(key=lambda item: (item.path not in starting, -tests_in[item.path]))


def _test_data_dir() -> Path:
    # Out of /root and the repo: the embedded server opens permissions along this path.
    # Each parallel test process (pytest-xdist's gw0, gw1…) runs its own server.
    base = Path(os.environ.get("RAGBOT_TEST_DATA_DIR", f"/tmp/ragbot-test-{os.getuid()}"))
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return base / worker if worker else base


@pytest.fixture(scope="session")
def admin_url() -> Iterator[str]:
    """A superuser URL to the test server (DATABASE_URL if set, else the embedded one)."""
    if os.environ.get("RAGBOT_TEST_DATABASE_URL"):
        yield os.environ["RAGBOT_TEST_DATABASE_URL"]
        return
    server = start_embedded_server(_test_data_dir())
    yield sqlalchemy_url(server)


@pytest.fixture(scope="session")
def make_database(admin_url: str) -> Iterator[object]:
    """A factory of empty throwaway databases, all dropped at the end of the session."""
    created: list[str] = []
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")

    def make() -> str:
        name = f"ragbot_test_{uuid.uuid4().hex[:10]}"
        with engine.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        created.append(name)
        return dbmod.with_database(admin_url, name)

    yield make
    with engine.connect() as conn:
        for name in created:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


_SESSION_DATABASE: list[str] = []  # the session database's URL, once made


@pytest.fixture(scope="session")
def database_url(make_database) -> str:  # type: ignore[no-untyped-def]
    """The session's migrated database."""
    url: str = make_database()
    dbmod.upgrade(url)
    _SESSION_DATABASE.append(url)
    return url


@pytest.fixture(scope="module", autouse=True)
def _empty_database_after_module(request: pytest.FixtureRequest) -> Iterator[None]:
    """Empty the session database after a file whose tests used it, once its own module
    fixtures (served processes) are gone: tests that only hand `database_url` to a process
    never pass through `db`'s emptying, and what their processes stored (an answered Slack
    message, a lease) would meet the next file's tests on this test process as a duplicate."""
    yield
    used = any(
        "database_url" in getattr(item, "fixturenames", ())
        for item in request.session.items
        if item.path == request.path
    )
    if used and _SESSION_DATABASE:
        empty_database(_SESSION_DATABASE[0])


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The local USE embedder (loaded once)."""
    return build_embedder(None, None, None, None)


@pytest.fixture
async def db(database_url: str, embedder: Embedder) -> AsyncIterator[Database]:
    """The session database, emptied after each test."""
    database = Database.connect(database_url)
    await check_embedder(database, embedder)
    try:
        yield database
    finally:
        async with database.transaction() as session:
            for statement in EMPTYING:
                await session.execute(text(statement))
        await database.dispose()


@pytest.fixture
def ingestion(db: Database, embedder: Embedder) -> IngestionService:
    """Ingestion with small limits so oversize cases are cheap."""
    return IngestionService(
        db, embedder, IngestOptions(policy=UploadPolicy(max_bytes=200_000), chunk_size=300)
    )


@pytest.fixture
def searcher(db: Database, embedder: Embedder) -> HybridSearcher:
    """The default hybrid searcher."""
    return HybridSearcher(db, embedder)
