"""`ragbot stats` and `ragbot traces` show the inbox and outbox as an operator needs them:
what waits to be answered, what waits to be sent, what failed and why."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from storage.db import Database
from storage.repositories import inbox as inbox_repo
from storage.repositories import outbox as outbox_repo
from tests.support import files
from tests.support.cli_runner import run_in_process

Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(db: Database, database_url: str, tmp_path: Path) -> Iterator[Cli]:
    """Run `ragbot ARGS...` against the test database (in this process, as the console
    script would); the completed "process"."""
    env = {**os.environ, "DATABASE_URL": database_url, "RAGBOT_DATA_DIR": str(tmp_path / "data")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return run_in_process(args, env, tmp_path)

    yield run


async def test_stats_and_traces_show_the_queues_and_failed_deliveries(
    cli: Cli, db: Database, tmp_path: Path
) -> None:
    doc = tmp_path / "dogs.txt"
    doc.write_text(files.TEXT)
    assert cli("ingest", str(doc)).returncode == 0
    assert cli("ask", "How much is a dog licence?").returncode == 0
    (turn,) = json.loads(cli("traces", "--json").stdout)
    trace_id = turn["trace_id"]
    assert turn["delivery_failed"] is None

    async with db.transaction() as session:
        # a message waiting for its answer for two minutes (its worker died)
        await inbox_repo.accept(session, "telegram", "Ev-waiting", {"text": "hello?"}, 30)
        await session.execute(
            text("UPDATE processed_events SET received_at = now() - interval '2 minutes'")
        )
        # sends: one due, one waiting out a 429, one the platform refused for good
        for key in ("due", "retrying", "failed"):
            await outbox_repo.enqueue(session, "telegram", "100", key, {"op": "send"}, trace_id)
        ids = {k: i for k, i in (await session.execute(text("SELECT key, id FROM outbox")))}
        await outbox_repo.postpone(session, ids["retrying"], 30, "429 Too Many Requests")
        await outbox_repo.fail(session, ids["failed"], "Bad Request: chat not found")
    report = cli("stats", "--json")
    assert report.returncode == 0, report.stderr
    queues = json.loads(report.stdout)["queues"]
    assert queues["inbox_depth"] == 1 and 120 <= queues["inbox_oldest_s"] < 300
    assert queues["inbox_failed"] == 0
    assert queues["outbox_pending"] == 2 and queues["outbox_retrying"] == 1
    assert queues["outbox_failed"] == 1 and queues["outbox_oldest_s"] is not None
    shown = cli("stats").stdout
    assert re.search(r"^inbox: 1 waiting, oldest 1\d\d s, 0 failed \(last day\)$", shown, re.M)
    assert "outbox: 2 waiting, 1 retrying, 1 failed (last day)" in shown

    (turn,) = json.loads(cli("traces", "--json").stdout)
    assert turn["delivery_failed"] == "Bad Request: chat not found"
    assert "delivery failed: Bad Request: chat not found" in cli("traces").stdout
