"""What hand-offs and refusals add up to, for `ragbot gaps` and `ragbot stats` (never commits)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.repositories.gap_reasks import (
    ANSWERED_CASE,
    ANSWERED_TURN,
    CASE_GAP,
    REASK_PLATFORM,
    REFUSED_GAP,
)


async def gap_questions(
    session: AsyncSession, since: datetime, platform: str | None = None
) -> list[dict[str, Any]]:
    """Refused turns and hand-off cases since `since` (of `platform` only, when given),
    newest first: question (masked), language, when, whether a person took it, whether
    staff answered it and whether a re-ask answered it since (`answered_later`:
    storage.repositories.gap_reasks)."""
    rows = await session.execute(
        text(
            "SELECT q.content AS question, coalesce(a.language, q.language) AS language,"
            " a.created_at AS at, NULL::bigint AS case_id, false AS staff_answered,"
            f" {ANSWERED_TURN.format('a.trace_id')} AS answered_later"
            " FROM messages a JOIN messages q ON q.trace_id = a.trace_id AND q.role = 'user'"
            " JOIN conversations c ON c.id = a.conversation_id"
            " WHERE a.role = 'assistant' AND a.created_at >= :since AND NOT q.blocked"
            " AND (CAST(:platform AS text) IS NULL OR c.platform = :platform)"
            f" AND {REFUSED_GAP}"
            " AND NOT EXISTS (SELECT 1 FROM handoff_cases h WHERE h.answer_message_id = a.id)"
            f" AND c.platform <> '{REASK_PLATFORM}'"
            " UNION ALL"
            " SELECT h.question, h.language, h.created_at, h.id,"
            " EXISTS (SELECT 1 FROM handoff_messages m WHERE m.case_id = h.id"
            "  AND m.direction = 'to_asker'),"
            f" {ANSWERED_CASE.format('h.id')}"
            " FROM handoff_cases h LEFT JOIN messages opened ON opened.id = h.answer_message_id"
            " WHERE h.created_at >= :since"
            " AND (CAST(:platform AS text) IS NULL OR h.platform = :platform)"
            f" AND {CASE_GAP.format('opened')}"
            " ORDER BY at DESC LIMIT 5000"
        ),
        {"since": since, "platform": platform},
    )
    return [dict(r._mapping) for r in rows]


async def summary(
    session: AsyncSession, since: datetime, platform: str | None = None
) -> dict[str, Any]:
    """Hand-offs opened, answered (a staff reply reached the asker) and closed since
    `since`, the median minutes to the first staff reply, and how many of them began
    at a refusal (of `platform` only, when given)."""
    row = (
        (
            await session.execute(
                text(
                    "SELECT count(*) AS opened,"
                    " count(*) FILTER (WHERE first_reply_at IS NOT NULL) AS answered,"
                    " count(*) FILTER (WHERE status = 'closed') AS closed,"
                    " count(*) FILTER (WHERE outcome = 'refused') AS from_refusals,"
                    " percentile_cont(0.5) WITHIN GROUP (ORDER BY"
                    "  extract(epoch FROM first_reply_at - created_at)) AS median_s"
                    " FROM handoff_cases WHERE created_at >= :since"
                    " AND (CAST(:platform AS text) IS NULL OR platform = :platform)"
                ),
                {"since": since, "platform": platform},
            )
        )
        .one()
        ._mapping
    )
    median = row["median_s"]
    return {
        "opened": int(row["opened"]),
        "answered": int(row["answered"]),
        "closed": int(row["closed"]),
        "from_refusals": int(row["from_refusals"]),
        "median_first_reply_minutes": round(float(median) / 60, 1) if median is not None else None,
    }
