"""Uploads are never stranded: a row and its ingestion job are stored together, and a
row that has no job anyway is reported, re-queued once, and purged past retention."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from bot.core.admin.retention import purge_expired
from bot.core.messages import Attachment, Reply
from storage.db import Database
from storage.embeddings import Embedder
from storage.models import Upload
from storage.repositories import uploads as uploads_repo
from tests.support.cli_runner import run_in_process
from tests.support.core_fixtures import (
    Worker,
    close_worker,
    collect,
    jobs_running,
    make_worker,
    message,
    only,
    settings_for_tests,
)

BODY = b"The swimming pool opens at seven on weekdays."


@pytest.fixture
async def pair(db: Database, database_url: str, embedder: Embedder) -> AsyncIterator[list[Worker]]:
    """Two workers (two engines) on the test database, as two processes would be."""
    del db  # emptied after the test
    workers = [await make_worker(database_url, embedder, settings_for_tests()) for _ in range(2)]
    yield workers
    for worker in workers:
        await close_worker(worker)


def _jobs_cli(database_url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`ragbot jobs ARGS` against the test database, as an operator runs it (in this
    process, through the console script's entry)."""
    env = {**os.environ, "DATABASE_URL": database_url, "RAGBOT_DATA_DIR": str(tmp_path / "d")}
    return run_in_process(["jobs", *args], env, tmp_path)


async def _scalar(db: Database, sql: str, **params: Any) -> Any:
    async with db.sessions() as session:
        return (await session.execute(text(sql), params)).scalar_one()


async def _ingest_jobs(db: Database, upload_id: int) -> list[str]:
    """The statuses of the ingestion jobs procrastinate holds for an upload."""
    async with db.sessions() as session:
        rows = await session.execute(
            text(
                "SELECT status::text FROM procrastinate_jobs WHERE task_name = 'ingest_upload'"
                " AND args->>'upload_id' = :id ORDER BY id"
            ),
            {"id": str(upload_id)},
        )
        return [r[0] for r in rows]


async def _stranded_row(db: Database, *, age: str = "2 minutes", status: str = "queued") -> int:
    """An upload stored with no job, `age` old: what the old two-step queueing left when
    its second step failed (or a job deleted by hand)."""
    async with db.transaction() as session:
        upload_id = await uploads_repo.add_upload(
            session,
            Upload(
                platform="telegram",
                user_id="42",
                conversation_key="42",
                file_name="pool.txt",
                title="Pool hours",
                collection="public",
                language="en",
                size_bytes=len(BODY),
                data=BODY,
                status=status,
            ),
        )
        await session.execute(
            text("UPDATE uploads SET created_at = now() - CAST(:age AS interval) WHERE id = :id"),
            {"age": age, "id": upload_id},
        )
    return upload_id


def _upload_message() -> Any:
    return message(
        "upload Pool hours",
        platform="telegram",
        user="42",
        conv="42",
        attachments=(Attachment("pool.txt", len(BODY), data=BODY),),
        upload_intent=True,
    )


async def test_an_upload_whose_job_cannot_be_queued_is_refused_and_nothing_is_kept(
    pair: list[Worker], db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = pair[0]
    real_defer = uploads_repo.defer_ingestion

    async def defer_then_lose_the_connection(*args: Any, **kwargs: Any) -> int:
        await real_defer(*args, **kwargs)  # the row and a job are written, then it fails
        raise ConnectionError("server closed the connection unexpectedly")

    monkeypatch.setattr(uploads_repo, "defer_ingestion", defer_then_lose_the_connection)
    replies = only(await collect(worker.core.handle(_upload_message())), Reply)
    assert [r.kind for r in replies] == ["upload_refused"]
    assert "nothing was kept" in replies[0].text and "send it again" in replies[0].text
    assert await _scalar(db, "SELECT count(*) FROM uploads") == 0  # no row, no bytes
    assert await _scalar(db, "SELECT count(*) FROM procrastinate_jobs") == 0
    assert (
        await _scalar(
            db, "SELECT count(*) FROM audit_log WHERE action = 'upload' AND result = 'failed'"
        )
        == 1
    )

    monkeypatch.setattr(uploads_repo, "defer_ingestion", real_defer)  # the queue is back
    replies = only(await collect(worker.core.handle(_upload_message())), Reply)
    assert [r.kind for r in replies] == ["upload_received"]
    upload_id = replies[0].data["upload_id"]
    assert await _ingest_jobs(db, upload_id) == ["todo"]
    async with jobs_running(worker):
        await asyncio.wait_for(worker.notified.wait(), 60)
    assert [o.status for o in worker.outcomes] == ["added"]


async def test_a_stranded_upload_is_reported_then_requeued_once_and_ingested_once(
    pair: list[Worker], db: Database, database_url: str, tmp_path: Path
) -> None:
    first, second = pair
    upload_id = await _stranded_row(db)

    listed = _jobs_cli(database_url, tmp_path, "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(r["id"], r["status"], r["stranded"]) for r in json.loads(listed.stdout)] == [
        (upload_id, "queued", True)
    ]
    table = _jobs_cli(database_url, tmp_path)
    assert f"stranded: 1 upload(s) with no job for over a minute (#{upload_id})" in table.stdout

    # two workers sweep at once, then one sweeps again: one job, never two
    swept = await asyncio.gather(first.jobs.requeue_stranded(), second.jobs.requeue_stranded())
    assert sorted(swept, key=len) == [[], [upload_id]]
    assert await first.jobs.requeue_stranded() == []
    assert await _ingest_jobs(db, upload_id) == ["todo"]
    assert not json.loads(_jobs_cli(database_url, tmp_path, "--json").stdout)[0]["stranded"]

    async with jobs_running(second):
        await asyncio.wait_for(second.notified.wait(), 60)
        await asyncio.sleep(1)  # time for a second (wrong) job to run too
    assert [(o.upload_id, o.status) for o in second.outcomes] == [(upload_id, "added")]
    assert "Pool hours" in second.outcomes[0].text
    assert await _ingest_jobs(db, upload_id) == ["succeeded"]
    assert await _scalar(db, "SELECT count(*) FROM documents WHERE title = 'Pool hours'") == 1
    assert await _scalar(db, "SELECT data IS NULL FROM uploads WHERE id = :i", i=upload_id)
    assert await first.jobs.requeue_stranded() == []  # done: nothing to sweep


async def test_a_starting_worker_requeues_what_was_stranded_while_it_was_down(
    pair: list[Worker], db: Database
) -> None:
    worker = pair[0]
    upload_id = await _stranded_row(db)
    async with jobs_running(worker):  # no sweep called: the worker does it as it starts
        await asyncio.wait_for(worker.notified.wait(), 60)
    assert [(o.upload_id, o.status) for o in worker.outcomes] == [(upload_id, "added")]


async def test_retention_deletes_stranded_uploads_and_keeps_those_with_a_job(
    pair: list[Worker], db: Database
) -> None:
    del pair
    queued_without_job = await _stranded_row(db, age="200 days")
    running_without_job = await _stranded_row(db, age="200 days", status="running")
    recent_without_job = await _stranded_row(db, age="2 days")
    waiting_for_its_job = await _stranded_row(db, age="200 days")
    async with db.transaction() as session:
        await uploads_repo.defer_ingestion(session, waiting_for_its_job, allow_personal_data=False)

    deleted = await purge_expired(db, 180)
    assert deleted["stranded_uploads"] == 2
    async with db.sessions() as session:
        left = (await session.execute(text("SELECT id FROM uploads ORDER BY id"))).scalars().all()
    assert left == [recent_without_job, waiting_for_its_job]
    assert queued_without_job not in left and running_without_job not in left
