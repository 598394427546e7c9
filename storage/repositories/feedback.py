"""Feedback votes on answers (never commits)."""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import Conversation, Feedback, Message


async def vote(
    session: AsyncSession, message_id: int, platform: str, user_id: str, rating: int, where: str
) -> tuple[bool, str | None]:
    """Store or change a user's vote on an answer: (found, the answer's trace id).

    Found only when the answer was posted on `platform` in the conversation the
    click came from: its key is `where` or starts with `where:` (a Slack thread
    `channel:ts`; a Telegram chat id, whose conversations are `chat[:…]`).
    """
    in_place = or_(
        Conversation.external_id == where,
        func.starts_with(Conversation.external_id, f"{where}:"),
    )
    answer = (
        await session.execute(
            select(Message.id, Message.trace_id)
            .join(Conversation, Conversation.id == Message.conversation_id)
            .where(
                Message.id == message_id,
                Message.role == "assistant",
                Conversation.platform == platform,
                in_place,
            )
        )
    ).first()
    if answer is None or not where:
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
