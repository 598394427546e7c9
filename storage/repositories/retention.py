"""Retention: what `ragbot purge` deletes (never commits)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.repositories.uploads import NO_LIVE_JOB, STRANDABLE

# table → the rows past retention; order matters (messages before the conversations
# they leave empty). Queued or running uploads with a job to move them on and
# unexpired delivery leases stay.
_PURGE = {
    "messages": "DELETE FROM messages WHERE created_at < :cutoff",
    "conversations": (
        "DELETE FROM conversations c WHERE c.created_at < :cutoff"
        " AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id)"
    ),
    "feedback": "DELETE FROM feedback WHERE updated_at < :cutoff",
    "audit_log": "DELETE FROM audit_log WHERE at < :cutoff",
    "chat_state": "DELETE FROM chat_state WHERE updated_at < :cutoff",
    "uploads": (
        "DELETE FROM uploads WHERE created_at < :cutoff AND status NOT IN ('queued', 'running')"
    ),
    # stranded: queued or running with no job that will ever finish them (their bytes
    # go with the row; a queued one the worker would re-queue is past its window)
    "stranded_uploads": (
        f"DELETE FROM uploads WHERE created_at < :cutoff AND {STRANDABLE} AND {NO_LIVE_JOB}"
    ),
    "processed_events": (
        "DELETE FROM processed_events WHERE received_at < :cutoff"
        " AND (status = 'done' OR lease_until < now())"
    ),
    "rate_limits": "DELETE FROM rate_limits WHERE window_start < :cutoff",
    "outbox": "DELETE FROM outbox WHERE created_at < :cutoff AND status IN ('done', 'failed')",
    # remembered answers by when they were stored or last voted helpful (confirmed_at
    # starts at created_at); their votes go with them
    "answer_memory": "DELETE FROM answer_memory WHERE confirmed_at < :cutoff",
    "gap_reasks": "DELETE FROM gap_reasks WHERE created_at < :cutoff",
    "answer_memory_votes": "DELETE FROM answer_memory_votes WHERE updated_at < :cutoff",
    # hand-off cases like conversations (their posts and messages go with them): closed
    # ones by when they closed, ones nobody ever closed by when they opened
    "handoff_cases": (
        "DELETE FROM handoff_cases WHERE (status = 'closed' AND closed_at < :cutoff)"
        " OR (status <> 'closed' AND created_at < :cutoff)"
    ),
}


async def purge(session: AsyncSession, cutoff: datetime) -> dict[str, int]:
    """Delete what is older than `cutoff`; rows deleted per table."""
    deleted: dict[str, int] = {}
    for table, statement in _PURGE.items():
        result = await session.execute(text(statement), {"cutoff": cutoff})
        deleted[table] = int(getattr(result, "rowcount", 0) or 0)
    return deleted
