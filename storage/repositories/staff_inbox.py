"""What the staff page in the browser reads: the cases waiting for a person, with their talk.

Reads only (never commits); replies and closing go through the hand-off desk,
as from the Slack and Telegram staff rooms.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

_SHOWN = (
    "id, status, platform, language, question, answer, outcome, claimed_by,"
    " first_reply_at, created_at"
)


async def waiting_cases(session: AsyncSession, limit: int) -> list[dict[str, Any]]:
    """The cases not closed yet, oldest first (at most `limit`)."""
    rows = await session.execute(
        text(
            f"SELECT {_SHOWN} FROM handoff_cases WHERE status <> 'closed'"
            " ORDER BY created_at, id LIMIT :limit"
        ),
        {"limit": limit},
    )
    return [dict(row._mapping) for row in rows]


async def messages_of(session: AsyncSession, case_ids: list[int]) -> list[dict[str, Any]]:
    """The relayed messages of these cases (to and from the asker), in order."""
    if not case_ids:
        return []
    rows = await session.execute(
        text(
            "SELECT id, case_id, direction, author, text, created_at FROM handoff_messages"
            " WHERE case_id = ANY(:ids) ORDER BY case_id, id"
        ),
        {"ids": case_ids},
    )
    return [dict(row._mapping) for row in rows]
