"""Answer corrections: the job a document change defers, the turns it re-asks, what became of
each (never commits).

A new version of a document, or its removal, defers one `correct_answers` job in the
transaction that makes the change (`document_changed`), so the job exists exactly
when the change does and a restart loses neither. Only a change some recent answer
cited defers a job (`MAX_DAYS`: the longest CORRECTION_DAYS allowed); the job itself
reads CORRECTIONS_ENABLED and CORRECTION_DAYS (bot.core.answering.corrections).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import Document
from storage.repositories.uploads import _DEFER, INGEST_QUEUE

CORRECTION_TASK = "correct_answers"  # bot.core.admin.jobs registers the task under it
MAX_DAYS = 90  # the longest CORRECTION_DAYS: no answer older than this is ever re-asked
# answers re-asked for one change at most (the newest): each re-ask is a turn of the
# model, and a much-cited document's change must not cost thousands of them
MAX_REASKS = 200
REPLACED, REMOVED = "replaced", "removed"
SENT, UNCHANGED, LIMITED, FAILED = "sent", "unchanged", "limited", "failed"
ASKER_PLATFORMS = ("slack", "telegram", "api")  # where askers are (never a re-ask's own)

# an answer that cited `title` (its citations hold {"document": title}), given to an asker
_CITED = (
    "a.role = 'assistant' AND NOT a.blocked AND a.citations @> CAST(:cited AS jsonb)"
    " AND a.created_at > now() - make_interval(days => :days)"
    " AND c.platform = ANY(:platforms)"
)

# an answer, its question and its conversation (the collections the turn read: null, all)
_TURN = (
    "SELECT a.id AS answer_id, a.content AS answer, a.language, a.created_at,"
    " a.details->'collections' AS collections,"
    " (a.details->'collections') IS NOT NULL AS recorded,"
    " q.id AS question_id, q.content AS question, q.details->>'user' AS asker,"
    " c.id AS conversation_id, c.platform, c.external_id, c.user_id"
    " FROM messages a JOIN conversations c ON c.id = a.conversation_id"
    " JOIN messages q ON q.trace_id = a.trace_id AND q.role = 'user'"
)


def _cited(title: str) -> str:
    return json.dumps([{"document": title}], ensure_ascii=False)


async def document_changed(session: AsyncSession, document: Document, change: str) -> bool:
    """Defer the corrections job for `document` (about to be replaced or removed, in this
    transaction) when a recent answer cited it; whether a job was deferred."""
    cited = await session.scalar(
        text(
            "SELECT 1 FROM messages a JOIN conversations c ON c.id = a.conversation_id"
            f" WHERE {_CITED} LIMIT 1"
        ),
        {"cited": _cited(document.title), "days": MAX_DAYS, "platforms": list(ASKER_PLATFORMS)},
    )
    if cited is None:
        return False
    changed_at = await session.scalar(text("SELECT now()"))  # the transaction's own time
    args = {
        "title": document.title,
        "document_id": int(document.id),
        "collection": document.collection,
        "change": change,
        "changed_at": changed_at.isoformat() if changed_at else None,
    }
    await session.scalar(
        _DEFER,
        {
            "queue": INGEST_QUEUE,
            "task": CORRECTION_TASK,
            "queueing_lock": None,
            "args": json.dumps(args, ensure_ascii=False),
        },
    )
    return True


async def cited_turns(
    session: AsyncSession, title: str, before: datetime, days: int
) -> tuple[list[dict[str, Any]], int]:
    """The answered turns of the last `days` (before `before`) that cited `title`, the
    newest MAX_REASKS of them oldest first (the answer, its question and the conversation
    it was given in), and how many there are in all."""
    rows = await session.execute(
        text(
            f"SELECT * FROM ({_TURN.replace('SELECT ', 'SELECT count(*) OVER () AS total, ', 1)}"
            f" WHERE {_CITED} AND a.created_at < :before ORDER BY a.id DESC LIMIT :most) t"
            " ORDER BY answer_id"
        ),
        {
            "cited": _cited(title),
            "days": days,
            "platforms": list(ASKER_PLATFORMS),
            "before": before,
            "most": MAX_REASKS,
        },
    )
    found = [dict(r._mapping) for r in rows]
    return found, int(found[0]["total"]) if found else 0


async def answered_turn(session: AsyncSession, answer_id: int) -> dict[str, Any] | None:
    """One answer's turn, as `cited_turns` gives it (None: gone, or no asker's)."""
    row = (
        await session.execute(
            text(f"{_TURN} WHERE a.id = :id AND a.role = 'assistant'"),
            {"id": answer_id},
        )
    ).first()
    return None if row is None else dict(row._mapping)


async def history_before(
    session: AsyncSession, conversation_id: int, question_id: int, limit: int
) -> list[tuple[str, str]]:
    """The conversation's last `limit` shown messages before the question, oldest first
    (a follow-up is re-asked with what it followed)."""
    rows = await session.execute(
        text(
            "SELECT role, content FROM (SELECT id, role, content FROM messages"
            " WHERE conversation_id = :conv AND id < :qid AND NOT blocked"
            " ORDER BY id DESC LIMIT :n) m ORDER BY id"
        ),
        {"conv": conversation_id, "qid": question_id, "n": limit},
    )
    return [(str(r[0]), str(r[1])) for r in rows]


async def settled(session: AsyncSession, answer_id: int, change: str) -> bool:
    """Whether this change was already settled for this answer (a retried job skips it;
    a re-ask that failed is not settled: the retry asks it again)."""
    found = await session.scalar(
        text(
            "SELECT 1 FROM answer_corrections WHERE answer_id = :a AND change = :c"
            f" AND status <> '{FAILED}'"
        ),
        {"a": answer_id, "c": change},
    )
    return found is not None


async def told_today(session: AsyncSession, platform: str, person: str) -> bool:
    """Whether `person` was sent a correction today; the person is locked until commit,
    so two jobs cannot both decide they were not."""
    await session.execute(
        text("SELECT pg_advisory_xact_lock(hashtext('correction:' || :p || ':' || :u))"),
        {"p": platform, "u": person},
    )
    found = await session.scalar(
        text(
            "SELECT 1 FROM answer_corrections WHERE platform = :p AND person = :u"
            " AND status = 'sent' AND sent_day = current_date"
        ),
        {"p": platform, "u": person},
    )
    return found is not None


async def conversation_exists(session: AsyncSession, conversation_id: int, answer_id: int) -> bool:
    """The conversation and the answer are still there (not deleted); both locked until
    commit, so a deletion waits for the correction or the correction sees it gone."""
    found = await session.scalar(
        text(
            "SELECT 1 FROM conversations c JOIN messages a ON a.conversation_id = c.id"
            " WHERE c.id = :conv AND a.id = :answer FOR SHARE"
        ),
        {"conv": conversation_id, "answer": answer_id},
    )
    return found is not None


async def record(
    session: AsyncSession,
    turn: dict[str, Any],
    change: str,
    document: str,
    status: str,
    reason: str | None = None,
) -> bool:
    """What became of one answer for one change; False when it was recorded already
    (a failed re-ask's record is replaced by what its retry found)."""
    row = await session.execute(
        text(
            "INSERT INTO answer_corrections (answer_id, change, document, platform, person,"
            " status, reason, sent_day) VALUES (:answer, :change, :document, :platform,"
            " :person, :status, :reason,"
            " CASE WHEN CAST(:status AS text) = 'sent' THEN current_date END)"
            " ON CONFLICT ON CONSTRAINT uq_answer_corrections_change DO UPDATE SET"
            " status = EXCLUDED.status, reason = EXCLUDED.reason, sent_day = EXCLUDED.sent_day,"
            " created_at = EXCLUDED.created_at"
            f" WHERE answer_corrections.status = '{FAILED}' RETURNING id"
        ),
        {
            "answer": turn["answer_id"],
            "change": change,
            "document": document,
            "platform": turn["platform"],
            "person": turn.get("user_id"),
            "status": status,
            "reason": reason,
        },
    )
    return row.first() is not None


async def summary(session: AsyncSession, since: datetime, platform: str | None) -> dict[str, int]:
    """Corrections since `since` (of `platform` only, when given): turns re-asked, people
    told, turns whose new answer states the same facts, re-asks that failed (after the
    job's retries)."""
    row = (
        await session.execute(
            text(
                "SELECT count(*) FILTER (WHERE status NOT IN ('gone', 'unreachable',"
                " 'unreadable', 'limited', 'failed')), count(*) FILTER (WHERE status = 'sent'),"
                " count(*) FILTER (WHERE status = 'unchanged'),"
                " count(*) FILTER (WHERE status = 'failed')"
                " FROM answer_corrections WHERE created_at >= :since"
                " AND (CAST(:platform AS text) IS NULL OR platform = :platform)"
            ),
            {"since": since, "platform": platform},
        )
    ).one()
    return {
        "reasked": int(row[0]),
        "sent": int(row[1]),
        "unchanged": int(row[2]),
        "failed": int(row[3]),
    }
