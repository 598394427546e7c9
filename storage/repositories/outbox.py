"""The outbox: sends that must arrive, retried off the turn until they do (or fail for a reason).

One row per send, keyed (`key`) so the same send enqueued twice, by a retry
or by a resumed turn, is stored once. A chat's rows go out in order: only the
oldest unsent row of a chat is ever taken, so a chat held by a 429 holds only
itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class Pending:
    """A send taken by this worker."""

    id: int
    platform: str
    chat: str
    key: str
    payload: dict[str, Any]
    attempts: int  # earlier attempts
    trace_id: str | None


async def enqueue(
    session: AsyncSession,
    platform: str,
    chat: str,
    key: str,
    payload: dict[str, Any],
    trace_id: str | None = None,
) -> bool:
    """Store a send; False when a send with this key is already stored."""
    row = await session.execute(
        text(
            "INSERT INTO outbox (platform, chat, key, payload, trace_id)"
            " VALUES (:platform, :chat, :key, CAST(:payload AS jsonb), :trace)"
            " ON CONFLICT (key) DO NOTHING RETURNING id"
        ),
        {
            "platform": platform,
            "chat": chat,
            "key": key,
            "payload": json.dumps(payload, ensure_ascii=False),
            "trace": trace_id,
        },
    )
    return row.first() is not None


async def take_due(
    session: AsyncSession,
    platforms: list[str],
    lease_s: float,
    limit: int,
    busy: list[int] | None = None,
) -> list[Pending]:
    """Lease the due head of each chat's queue (its oldest unsent row).

    `busy`: rows this worker is still sending (never taken twice). A row taken
    again after its lease ran out (its worker died or hung mid-send) counts an
    attempt, so a send that kills workers ends failed rather than retried forever.
    """
    rows = await session.execute(
        text(
            "WITH heads AS (SELECT DISTINCT ON (platform, chat) id, status, next_at, lease_until"
            " FROM outbox WHERE status IN ('pending', 'sending') AND platform = ANY(:platforms)"
            " ORDER BY platform, chat, id),"
            # the conditions are on `o`, the locked row, not on the `heads` snapshot: a
            # head another worker took (or sent) since this statement began is rechecked
            # at its newest version when locked, and skipped rather than sent twice
            " due AS (SELECT o.id FROM outbox o JOIN heads h ON h.id = o.id"
            " WHERE ((o.status = 'pending' AND o.next_at <= now())"
            " OR (o.status = 'sending' AND o.lease_until < now()))"
            " AND NOT (o.id = ANY(:busy))"
            " ORDER BY o.next_at LIMIT :limit FOR UPDATE OF o SKIP LOCKED)"
            " UPDATE outbox o SET status = 'sending',"
            " attempts = o.attempts + CASE WHEN o.status = 'sending' THEN 1 ELSE 0 END,"
            " lease_until = now() + make_interval(secs => :lease)"
            " FROM due WHERE o.id = due.id"
            " RETURNING o.id, o.platform, o.chat, o.key, o.payload, o.attempts, o.trace_id"
        ),
        {"platforms": platforms, "lease": lease_s, "limit": limit, "busy": busy or []},
    )
    return [Pending(r[0], r[1], r[2], r[3], dict(r[4]), int(r[5]), r[6]) for r in rows]


async def sent(session: AsyncSession, row_id: int, result: dict[str, Any] | None) -> None:
    """Delivered: the text is dropped (the answer is kept with its conversation)."""
    await session.execute(
        text(
            "UPDATE outbox SET status = 'done', sent_at = now(), attempts = attempts + 1,"
            " result = CAST(:result AS jsonb), last_error = NULL, payload = '{}'::jsonb"
            " WHERE id = :id"
        ),
        {"id": row_id, "result": json.dumps(result) if result is not None else None},
    )


async def postpone(session: AsyncSession, row_id: int, after_s: float, error: str | None) -> None:
    """Not sent (a 429, a 5xx, the network): try again after `after_s`."""
    await session.execute(
        text(
            "UPDATE outbox SET status = 'pending', attempts = attempts + :counted,"
            " next_at = now() + make_interval(secs => :after),"
            " last_error = coalesce(:error, last_error) WHERE id = :id"
        ),
        # pacing a send (no error) is not an attempt
        {"id": row_id, "after": after_s, "error": error, "counted": 1 if error else 0},
    )


async def fail(session: AsyncSession, row_id: int, reason: str) -> str | None:
    """Given up: the reason is kept, and returned with the send's trace id."""
    row = await session.execute(
        text(
            "UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = :reason"
            " WHERE id = :id RETURNING trace_id"
        ),
        {"id": row_id, "reason": reason[:500]},
    )
    return row.scalar()


async def release(session: AsyncSession, row_ids: list[int]) -> None:
    """Let taken rows go at once (this worker stops): another worker sends them."""
    await session.execute(
        text("UPDATE outbox SET status = 'pending' WHERE id = ANY(:ids) AND status = 'sending'"),
        {"ids": row_ids},
    )


async def counts(session: AsyncSession, platform: str | None = None) -> dict[str, Any]:
    """Sends waiting, waiting after a failed attempt, and failed (last day); of one
    platform's sends when `platform` is given."""
    row = (
        await session.execute(
            text(
                "SELECT count(*) FILTER (WHERE status IN ('pending', 'sending')),"
                " count(*) FILTER (WHERE status IN ('pending', 'sending') AND attempts > 0),"
                " count(*) FILTER (WHERE status = 'failed'"
                " AND created_at > now() - interval '1 day'),"
                " EXTRACT(EPOCH FROM now() - min(created_at)"
                " FILTER (WHERE status IN ('pending', 'sending')))"
                " FROM outbox WHERE CAST(:platform AS text) IS NULL OR platform = :platform"
            ),
            {"platform": platform},
        )
    ).one()
    return {
        "outbox_pending": int(row[0]),
        "outbox_retrying": int(row[1]),
        "outbox_failed": int(row[2]),
        "outbox_oldest_s": float(row[3]) if row[3] is not None else None,
    }


async def failures(session: AsyncSession, last: int) -> list[dict[str, Any]]:
    """The newest failed sends, with their reasons (for `ragbot traces`)."""
    rows = await session.execute(
        text(
            "SELECT created_at, platform, key, trace_id, attempts, last_error FROM outbox"
            " WHERE status = 'failed' ORDER BY created_at DESC LIMIT :last"
        ),
        {"last": last},
    )
    return [
        {
            "at": r[0].isoformat(),
            "platform": r[1],
            "key": r[2],
            "trace_id": r[3],
            "attempts": int(r[4]),
            "reason": r[5],
        }
        for r in rows
    ]


async def delivered(
    session: AsyncSession, platform: str, chat: str, after: int, limit: int = 50
) -> list[tuple[int, dict[str, Any], datetime]]:
    """(id, result, when) of the sends done to `chat` after row `after`, oldest first:
    what a client that collects its messages (the HTTP API's web chat) has not seen (its
    channel's send returned the message, kept as the row's result)."""
    rows = await session.execute(
        text(
            "SELECT id, coalesce(result, '{}'::jsonb), created_at FROM outbox"
            " WHERE platform = :platform AND chat = :chat AND id > :after AND status = 'done'"
            " ORDER BY id LIMIT :limit"
        ),
        {"platform": platform, "chat": chat, "after": after, "limit": limit},
    )
    return [(int(r[0]), dict(r[1]), r[2]) for r in rows]
