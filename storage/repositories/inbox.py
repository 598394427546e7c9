"""The inbox: accepted deliveries waiting for, or being given, their answer.

Rows live in `processed_events`. A row with a `payload` is an accepted message:
`status = 'claimed'` while it waits or runs (`lease_until` says until when the
worker holding it may keep it), `'done'` once answered (the payload is then
cleared), `'failed'` when every attempt failed. Rows without a payload are
quick adapter-local actions claimed once (see `deliveries`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class Waiting:
    """An inbox row taken by this worker: the stored message and what was posted for it."""

    platform: str
    delivery_id: str
    payload: dict[str, Any]
    posted: list[dict[str, Any]]
    attempts: int
    received_at: datetime
    waited_s: float  # from acceptance until now


async def accept(
    session: AsyncSession,
    platform: str,
    delivery_id: str,
    payload: dict[str, Any],
    lease_s: float,
    owner: str = "",
) -> bool:
    """Store an accepted message, leased to `owner`; False when already in the inbox."""
    row = await session.execute(
        text(
            "INSERT INTO processed_events"
            " (platform, event_id, status, lease_until, payload, owner)"
            " VALUES (:platform, :id, 'claimed', now() + make_interval(secs => :lease),"
            " CAST(:payload AS jsonb), :owner)"
            " ON CONFLICT (platform, event_id) DO NOTHING RETURNING event_id"
        ),
        {
            "platform": platform,
            "id": delivery_id,
            "lease": lease_s,
            "payload": json.dumps(payload, ensure_ascii=False),
            "owner": owner,
        },
    )
    return row.first() is not None


GAVE_UP = "its worker stopped during every attempt"  # last_error when no attempt settled


async def take_expired(
    session: AsyncSession,
    platforms: list[str],
    lease_s: float,
    limit: int,
    max_attempts: int,
    owner: str = "",
) -> list[Waiting]:
    """Lease waiting deliveries whose lease ran out (their worker died, or let them go).

    A delivery already tried `max_attempts` times is failed instead (its last error
    kept, else GAVE_UP): a message whose turn kills its worker (out of memory, a
    crash) would otherwise be taken again and again, taking every worker down.
    """
    rows = await session.execute(
        text(
            "WITH due AS (SELECT platform, event_id, attempts FROM processed_events"
            " WHERE payload IS NOT NULL AND status = 'claimed' AND lease_until < now()"
            " AND platform = ANY(:platforms) ORDER BY received_at LIMIT :limit"
            " FOR UPDATE SKIP LOCKED),"
            " given_up AS (UPDATE processed_events p SET status = 'failed', payload = NULL,"
            " last_error = coalesce(p.last_error, :gave_up) FROM due"
            " WHERE p.platform = due.platform AND p.event_id = due.event_id"
            " AND due.attempts >= :max RETURNING p.event_id)"
            " UPDATE processed_events p SET lease_until = now() + make_interval(secs => :lease),"
            " attempts = p.attempts + 1, owner = :owner FROM due"
            " WHERE p.platform = due.platform AND p.event_id = due.event_id"
            " AND due.attempts < :max"
            " RETURNING p.platform, p.event_id, p.payload, p.posted, p.attempts, p.received_at,"
            " EXTRACT(EPOCH FROM now() - p.received_at)"
        ),
        {
            "platforms": platforms,
            "lease": lease_s,
            "limit": limit,
            "max": max_attempts,
            "gave_up": GAVE_UP,
            "owner": owner,
        },
    )
    return [
        Waiting(r[0], r[1], dict(r[2]), list(r[3] or []), int(r[4]), r[5], float(r[6]))
        for r in rows
    ]


async def renew(
    session: AsyncSession, platform: str, delivery_ids: list[str], lease_s: float, owner: str = ""
) -> set[str]:
    """Extend the leases `owner` still holds; the ids renewed (a missing one was taken over)."""
    rows = await session.execute(
        text(
            "UPDATE processed_events SET lease_until = now() + make_interval(secs => :lease)"
            " WHERE platform = :platform AND event_id = ANY(:ids) AND status = 'claimed'"
            " AND owner IS NOT DISTINCT FROM :owner RETURNING event_id"
        ),
        {"platform": platform, "ids": delivery_ids, "lease": lease_s, "owner": owner},
    )
    return {r[0] for r in rows}


async def record_posted(
    session: AsyncSession, platform: str, delivery_id: str, ref: dict[str, Any]
) -> None:
    """Remember a message posted for this delivery (a resumed turn edits it, never reposts)."""
    await session.execute(
        text(
            "UPDATE processed_events SET posted = posted || CAST(:ref AS jsonb)"
            " WHERE platform = :platform AND event_id = :id"
        ),
        {"platform": platform, "id": delivery_id, "ref": json.dumps([ref])},
    )


async def finish(session: AsyncSession, platform: str, delivery_id: str) -> None:
    """Answered: done for good, and the stored message (unmasked) is dropped."""
    await session.execute(
        text(
            "UPDATE processed_events SET status = 'done', completed_at = now(), payload = NULL,"
            " last_error = NULL WHERE platform = :platform AND event_id = :id"
        ),
        {"platform": platform, "id": delivery_id},
    )


async def retry_later(
    session: AsyncSession,
    platform: str,
    delivery_id: str,
    after_s: float,
    error: str,
    max_attempts: int,
    owner: str = "",
) -> bool:
    """This attempt failed: let the delivery go for another worker after `after_s`.

    After `max_attempts` the delivery is failed for good (the stored message is
    dropped) rather than retried forever; False then.
    """
    row = await session.execute(
        text(
            "UPDATE processed_events SET last_error = :error,"
            " status = CASE WHEN attempts >= :max THEN 'failed' ELSE status END,"
            " payload = CASE WHEN attempts >= :max THEN NULL ELSE payload END,"
            " lease_until = now() + make_interval(secs => :after)"
            " WHERE platform = :platform AND event_id = :id AND status = 'claimed'"
            " AND owner IS NOT DISTINCT FROM :owner RETURNING status"
        ),
        {
            "platform": platform,
            "id": delivery_id,
            "after": after_s,
            "error": error[:500],
            "max": max_attempts,
            "owner": owner,
        },
    )
    status = row.scalar()
    return status == "claimed"


async def release_waiting(
    session: AsyncSession, platform: str, delivery_ids: list[str], owner: str = ""
) -> None:
    """Let deliveries this worker will not start go now (a drain): the next worker takes them."""
    await session.execute(
        text(
            "UPDATE processed_events SET lease_until = now() - interval '1 second'"
            " WHERE platform = :platform AND event_id = ANY(:ids) AND status = 'claimed'"
            " AND owner IS NOT DISTINCT FROM :owner"
        ),
        {"platform": platform, "ids": delivery_ids, "owner": owner},
    )


async def depth(session: AsyncSession, platform: str | None = None) -> dict[str, Any]:
    """Inbox depth, the oldest waiting message's age, and failed deliveries (last day);
    of one platform's inbox when `platform` is given."""
    row = (
        await session.execute(
            text(
                "SELECT count(*) FILTER (WHERE status = 'claimed'),"
                " EXTRACT(EPOCH FROM now() - min(received_at) FILTER (WHERE status = 'claimed')),"
                " count(*) FILTER (WHERE status = 'failed'"
                " AND received_at > now() - interval '1 day')"
                " FROM processed_events WHERE (payload IS NOT NULL OR status = 'failed')"
                " AND (CAST(:platform AS text) IS NULL OR platform = :platform)"
            ),
            {"platform": platform},
        )
    ).one()
    oldest = float(row[1]) if row[1] is not None else None
    return {"inbox_depth": int(row[0]), "inbox_oldest_s": oldest, "inbox_failed": int(row[2])}


async def mark_limited(session: AsyncSession, platform: str, delivery_id: str) -> None:
    """The message is over its sender's rate limit (kept for whoever resumes it)."""
    await session.execute(
        text(
            "UPDATE processed_events SET payload = payload || '{\"limited\": true}'::jsonb"
            " WHERE platform = :platform AND event_id = :id"
        ),
        {"platform": platform, "id": delivery_id},
    )


async def store_learned_audience(
    session: AsyncSession,
    platform: str,
    delivery_id: str,
    audience: dict[str, Any],
    limited: bool,
) -> bool:
    """Replace a message's pending audience with the one learned (and its rate-limit mark
    with `limited`): whoever resumes it reads these. False when it was no longer pending
    (stored by another attempt already, or the message is done)."""
    row = await session.execute(
        text(
            "UPDATE processed_events SET payload = jsonb_set(payload - 'limited', '{audience}',"
            " CAST(:audience AS jsonb)) || CASE WHEN :limited THEN '{\"limited\": true}'::jsonb"
            " ELSE '{}'::jsonb END"
            " WHERE platform = :platform AND event_id = :id"
            " AND payload -> 'audience' ->> 'pending' = 'true' RETURNING event_id"
        ),
        {
            "platform": platform,
            "id": delivery_id,
            "audience": json.dumps(audience),
            "limited": limited,
        },
    )
    return row.first() is not None


async def status_and_posted(
    session: AsyncSession, platform: str, delivery_id: str
) -> tuple[str, list[Any]] | None:
    """A delivery's status and what its renderer recorded as posted; None: no such delivery."""
    row = (
        await session.execute(
            text(
                "SELECT status, posted FROM processed_events"
                " WHERE platform = :platform AND event_id = :id"
            ),
            {"platform": platform, "id": delivery_id},
        )
    ).first()
    return None if row is None else (str(row[0]), list(row[1] or []))
