"""Audit log, uploads waiting for their ingestion job, feedback votes and counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import undefer

from storage.models import AuditEntry, Feedback, Message, Upload


async def audit(
    session: AsyncSession,
    platform: str,
    user_id: str,
    action: str,
    target: str | None,
    result: str,
    detail: str | None = None,
) -> None:
    """Write one audit row."""
    session.add(
        AuditEntry(
            platform=platform,
            user_id=user_id,
            action=action,
            target=target,
            result=result,
            detail=detail,
        )
    )


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


async def vote(
    session: AsyncSession, message_id: int, platform: str, user_id: str, rating: int
) -> tuple[bool, str | None]:
    """Store or change a user's vote on an answer: (found, the answer's trace id)."""
    answer = (
        await session.execute(
            select(Message.id, Message.trace_id).where(
                Message.id == message_id, Message.role == "assistant"
            )
        )
    ).first()
    if answer is None:
        return False, None
    trace_id = answer[1]
    stmt = insert(Feedback).values(
        message_id=message_id, platform=platform, user_id=user_id, rating=rating, trace_id=trace_id
    )
    await session.execute(
        stmt.on_conflict_do_update(
            constraint="uq_feedback_vote",
            set_={"rating": stmt.excluded.rating, "updated_at": func.now()},
        )
    )
    return True, trace_id


async def counts(session: AsyncSession) -> dict[str, int]:
    """Sizes of the knowledge base and of the traffic, for `stats`."""
    row = (
        await session.execute(
            text(
                "SELECT (SELECT count(*) FROM documents), (SELECT chunk_count FROM index_meta),"
                " (SELECT count(*) FROM forms), (SELECT count(*) FROM conversations),"
                " (SELECT count(*) FROM messages WHERE role = 'user'),"
                " (SELECT count(*) FROM feedback WHERE rating > 0),"
                " (SELECT count(*) FROM feedback WHERE rating < 0),"
                " (SELECT count(*) FROM uploads WHERE status IN ('queued', 'running'))"
            )
        )
    ).one()
    keys = (
        "documents",
        "chunks",
        "forms",
        "conversations",
        "questions",
        "helpful",
        "not_helpful",
        "uploads_pending",
    )
    return dict(zip(keys, (int(v) for v in row), strict=True))
