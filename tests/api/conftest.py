"""The HTTP API under test: in process (uvicorn on its own thread and loop, each request
handled on the test's loop through the bridge, as `ragbot serve` runs it) for most tests,
and a real `ragbot serve` process (`served_api`) for the browser."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from pydantic import SecretStr
from sqlalchemy import text

from bot.api.app import ApiAdapter
from bot.app.bridge import serving_app
from bot.core.admin.api_keys import ApiKeys
from graph.models import build_chat_model
from storage.db import Database
from storage.embeddings import Embedder
from storage.index import check_embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.conftest import EMPTYING, empty_database
from tests.slack.test_slack import SlackHarness, serve_slack, slack_settings
from tests.support.core_fixtures import DOCS, Worker, close_worker, make_worker, settings_for_tests
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fake_slack import FakeSlack
from tests.support.processes import free_port, launch

PLAN = '{"task_type": "simple_faq", "should_retrieve": true, "query": "passport renewal cost"}'
INTERNAL_DOC = (
    "# Staff travel policy\n\nEmployees book work trips through the travel desk.\n\n"
    "## Per diem\n\nThe staff per diem for overseas travel is 95 dollars a day.\n"
)


def publish(database_url: str, embedder: Embedder, name: str, body: str) -> None:
    """A document ingested into the public collection of a served database (the test's
    own loop: the server runs in another process or thread)."""

    async def ingest() -> None:
        db = Database.connect(database_url)
        try:
            await IngestionService(db, embedder, IngestOptions()).ingest_bytes(
                name, body.encode(), collection="public"
            )
        finally:
            await db.dispose()

    asyncio.run(ingest())


@dataclass
class ApiHarness:
    """A worker with the API on a real port; its keys by name (public, staff, admin)."""

    url: str
    worker: Worker
    keys: dict[str, str]
    llm: FakeOpenAI | None = None
    slack: SlackHarness | None = None
    clients: list[httpx.AsyncClient] = field(default_factory=list)

    def client(self, key: str | None = "public") -> httpx.AsyncClient:
        """An HTTP client sending the named key (None: no Authorization header)."""
        headers = {} if key is None else {"Authorization": f"Bearer {self.keys.get(key, key)}"}
        made = httpx.AsyncClient(base_url=self.url, headers=headers, timeout=30)
        self.clients.append(made)
        return made


async def _documents(db: Database, embedder: Embedder) -> None:
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():  # published pages: citations link to them
        url = f"https://city.example.org/docs/{name.removesuffix('.md')}"
        await ingestion.ingest_bytes(name, body.encode(), collection="public", url=url)
    await ingestion.ingest_bytes("travel.md", INTERNAL_DOC.encode(), collection="internal")


async def _keys(db: Database) -> dict[str, str]:
    keys = ApiKeys(db)
    made = {
        "public": await keys.create("website", ["public"]),
        "staff": await keys.create("intranet", ["public", "internal"], rate_limit=3),
        "admin": await keys.create("ops", ["public", "internal"], admin=True),
    }
    return {name: key for name, (_row, key) in made.items()}


@contextlib.asynccontextmanager
async def api_harness(
    database_url: str,
    embedder: Embedder,
    llm_answer: str | None = None,
    pace: float = 0.0,
    keys: bool = True,
    slack: FakeSlack | None = None,
    web_chat: bool = False,
    **settings: Any,
) -> AsyncIterator[ApiHarness]:
    """Documents in (public and internal), keys made, the API served on a free port.

    `llm_answer`: the graph uses a fake model that plans a FAQ search and writes this
    answer at `pace` seconds per piece; None is no-LLM mode. `slack`: the Slack adapter
    runs too, on this fake (a staff room for hand-off tests). `web_chat`: the public key
    is WEB_CHAT_API_KEY (the web chat's, shared by every visitor).
    """
    fake = None
    llm = None
    if llm_answer is not None:
        fake = FakeOpenAI().start()
        fake.responder = lambda body: (
            Reply(PLAN)
            if "planning step" in str(body["messages"][0]["content"])
            else Reply(llm_answer, pace=pace)
        )
        llm = build_chat_model(fake.url, "key", "fake", timeout=10.0)
    config = slack_settings(slack, **settings) if slack else settings_for_tests(**settings)
    worker = await make_worker(database_url, embedder, config, llm=llm)
    await _documents(worker.db, embedder)
    made = await _keys(worker.db) if keys else {}
    if web_chat:
        config.web_chat_api_key = SecretStr(made["public"])
    adapter = ApiAdapter(worker.core, config)
    await adapter.start()  # the MCP endpoint's session manager, as `ragbot serve` starts it
    slack_side = await serve_slack(worker, config) if slack else None
    if slack_side is None:
        worker.core.outbox.open()
    # two loops, as `ragbot serve`: a handler doing core work off the core's loop fails here
    loop = asyncio.get_running_loop()
    app = serving_app(worker.db, adapter.routes, lambda: worker.core.closing, loop)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        await asyncio.sleep(0.02)
    harness = ApiHarness(f"http://127.0.0.1:{port}", worker, made, fake, slack_side)
    try:
        yield harness
    finally:
        for client in harness.clients:
            await client.aclose()
        server.should_exit = True
        await asyncio.to_thread(thread.join, 10)
        worker.core.begin_drain()
        if slack_side is not None:
            await slack_side.http.aclose()
            await slack_side.adapter.stop()
        await worker.core.drain(5)
        await adapter.close()
        await worker.core.outbox.stop(5)
        if slack_side is not None:
            await slack_side.adapter.close()
        async with worker.db.transaction() as session:  # as the `db` fixture leaves it
            for statement in EMPTYING:
                await session.execute(text(statement))
        await close_worker(worker)
        if fake is not None:
            fake.stop()


@dataclass
class Served:
    """A real `ragbot serve` with the API and the web chat on."""

    url: str
    database_url: str
    keys: dict[str, str]
    proc: subprocess.Popen[str]


@contextlib.contextmanager
def serving_api(
    tmp_path: Path, database_url: str, embedder: Embedder, **env: str
) -> Iterator[Served]:
    """`ragbot serve` on the session database: documents in, keys made, WEB_CHAT_API_KEY set
    to the public key, `env` on top. Tables are emptied after."""

    async def prepare() -> dict[str, str]:
        db = Database.connect(database_url)
        try:
            await check_embedder(db, embedder)  # records the model, as the first start does
            await _documents(db, embedder)
            return await _keys(db)
        finally:
            await db.dispose()

    keys = asyncio.run(prepare())
    # turns in the serving process (TURN_PROCESSES=0, a supported set-up): these tests are
    # about the pages and the API; a turn worker would add a second start-up of the
    # embedder and the model client to each. The worker path has its own tests
    # (tests/core, test_serve_drain, test_web_chat_stop pass TURN_PROCESSES=1).
    full_env = {
        "DATABASE_URL": database_url,
        "WEB_CHAT_API_KEY": keys["public"],
        "TURN_PROCESSES": "0",
        **env,
    }
    proc: subprocess.Popen[str] | None = None
    try:
        proc, port = launch("serve", tmp_path, full_env)
        yield Served(f"http://127.0.0.1:{port}", database_url, keys, proc)
    finally:
        if proc is not None:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.communicate(timeout=30)
            if proc.poll() is None:
                proc.kill()
        # emptied even when the server never came up: the keys made above stay otherwise
        empty_database(database_url)


@pytest.fixture(scope="module")
def served_api(
    tmp_path_factory: pytest.TempPathFactory, database_url: str, embedder: Embedder
) -> Iterator[Served]:
    """A real `ragbot serve` with the API and the web chat on (see `serving_api`), shared
    by a module's tests (a start costs seconds): they must not count on an empty state."""
    with serving_api(tmp_path_factory.mktemp("served"), database_url, embedder) as served:
        yield served
