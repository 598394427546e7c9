"""Uploads waiting for, running or finished by their ingestion job (never commits)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import undefer

from storage.models import Upload


async def add_upload(session: AsyncSession, upload: Upload) -> int:
    """Insert an upload (with its bytes); its id."""
    session.add(upload)
    await session.flush()
    return int(upload.id)


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
