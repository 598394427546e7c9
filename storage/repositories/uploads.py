"""Uploads waiting for, running or finished by their ingestion job (never commits).

An upload's ingestion job is a row in procrastinate's `procrastinate_jobs`,
inserted here through procrastinate's own SQL function in the caller's
transaction, so an upload row and its job are committed together or not at all.
An upload whose job is gone anyway (rows from before that, a job deleted by hand,
one that exhausted its retries) is *stranded*: `stranded_uploads` finds them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import undefer

from storage.models import Upload

# The ingestion job as procrastinate knows it (bot.core.admin.jobs registers the task under
# these names): the SQL below must find the jobs that task defers.
INGEST_QUEUE = "uploads"
INGEST_TASK = "ingest_upload"
STRANDED_AFTER_S = 60  # a queued upload this old with no job is reported stranded

# No job that will still run for the upload `uploads` (todo: waiting, doing: running or
# about to be retried when its worker is found dead). Matched by the job id stored on
# the row or by the job's arguments (a job deferred before its id could be stored).
# Literal SQL: the status column is procrastinate's enum type, not text.
NO_LIVE_JOB = (
    "NOT EXISTS (SELECT 1 FROM procrastinate_jobs j"
    " WHERE j.status IN ('todo', 'doing')"
    f" AND j.task_name = '{INGEST_TASK}'"
    " AND (j.id = uploads.job_id OR j.args->>'upload_id' = uploads.id::text))"
)
# what a job would have moved on: queued (waiting) or running (its job died for good)
STRANDABLE = "uploads.status IN ('queued', 'running')"

# procrastinate's own defer (the function `App.defer_async` calls, schema of the pinned
# version, applied by migration 0002); its insert trigger NOTIFYs the workers, which
# Postgres delivers at commit, so a worker never sees a job before its upload.
_DEFER = text(
    "SELECT unnest(procrastinate_defer_jobs_v1(ARRAY[ROW("
    "CAST(:queue AS varchar), CAST(:task AS varchar), 0, NULL::text,"
    " CAST(:queueing_lock AS text), CAST(:args AS jsonb), NULL::timestamptz"
    ")::procrastinate_job_to_defer_v1]))"
)


async def add_upload(session: AsyncSession, upload: Upload) -> int:
    """Insert an upload (with its bytes); its id."""
    session.add(upload)
    await session.flush()
    return int(upload.id)


async def defer_ingestion(
    session: AsyncSession, upload_id: int, *, allow_personal_data: bool
) -> int:
    """Queue the ingestion job of an upload in the caller's transaction; the job id.

    The job carries the queueing lock `upload:<id>`: procrastinate refuses a second
    waiting job for the same upload (IntegrityError), so a re-queue cannot double it.
    """
    args = {"upload_id": upload_id, "allow_personal_data": allow_personal_data}
    job_id = await session.scalar(
        _DEFER,
        {
            "queue": INGEST_QUEUE,
            "task": INGEST_TASK,
            "queueing_lock": f"upload:{upload_id}",
            "args": json.dumps(args),
        },
    )
    if job_id is None:  # the function returns one id per job given
        raise RuntimeError(f"procrastinate deferred no job for upload {upload_id}")
    await set_upload(session, upload_id, job_id=int(job_id))
    return int(job_id)


async def stranded_uploads(
    session: AsyncSession,
    older_than_s: float = STRANDED_AFTER_S,
    *,
    platform: str | None = None,
    statuses: Sequence[str] = ("queued", "running"),
) -> Sequence[Upload]:
    """Uploads in `statuses` older than `older_than_s` that no job will move on, oldest first."""
    query = (
        select(Upload)
        .where(
            Upload.status.in_(statuses),
            Upload.created_at < func.now() - timedelta(seconds=older_than_s),
            text(NO_LIVE_JOB),
        )
        .order_by(Upload.id)
    )
    if platform is not None:
        query = query.where(Upload.platform == platform)
    return (await session.scalars(query)).all()


async def claim_stranded(session: AsyncSession, upload_id: int, seen_job_id: int | None) -> bool:
    """Lock a queued upload that still has no live job, for the caller to re-queue it.

    False when it moved on meanwhile, another sweeper holds it (SKIP LOCKED), or its
    job id changed since it was seen (a sweeper that just re-queued it: Postgres
    re-checks that column on the committed row, which the NOT EXISTS cannot see).
    """
    row = await session.scalar(
        select(Upload.id)
        .where(
            Upload.id == upload_id,
            Upload.status == "queued",
            Upload.job_id.is_not_distinct_from(seen_job_id),
            text(NO_LIVE_JOB),
        )
        .with_for_update(skip_locked=True)
    )
    return row is not None


async def get_upload(
    session: AsyncSession, upload_id: int, *, with_data: bool = False
) -> Upload | None:
    """One upload; `with_data` loads its bytes too."""
    query = select(Upload).where(Upload.id == upload_id)
    if with_data:
        query = query.options(undefer(Upload.data))
    return await session.scalar(query)


async def set_upload(session: AsyncSession, upload_id: int, **values: Any) -> None:
    """Update an upload's status fields."""
    await session.execute(update(Upload).where(Upload.id == upload_id).values(**values))


async def recent_uploads(
    session: AsyncSession, platform: str | None = None, limit: int = 20
) -> Sequence[Upload]:
    """The newest uploads first (of one platform when given)."""
    query = select(Upload).order_by(Upload.id.desc()).limit(limit)
    if platform is not None:
        query = query.where(Upload.platform == platform)
    return (await session.scalars(query)).all()


async def settle_held(
    session: AsyncSession,
    upload_id: int,
    platform: str | None,
    user_id: str | None,
    *,
    publish: bool,
) -> Upload | None:
    """Move a held upload on, only for the admin who sent it: `publish` queues it again;
    otherwise it is cancelled, its bytes dropped and its finish time set now.

    `platform` and `user_id` None: the operator at the console, who may settle any.
    One caller wins: the row changes only while it is still `held`, so a second
    press (or a second worker) gets None. The upload as it was, with its title.
    """
    values: dict[str, Any] = (
        {"status": "queued"}
        if publish
        else {"status": "cancelled", "data": None, "finished_at": func.now()}
    )
    row = await session.scalar(
        update(Upload)
        .where(
            Upload.id == upload_id,
            Upload.status == "held",
            *((Upload.platform == platform, Upload.user_id == user_id) if platform else ()),
        )
        .values(**values)
        .returning(Upload)
    )
    return row
