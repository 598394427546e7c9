"""Delivery claims (exactly-once answers across workers) and per-user rate limits."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def claim(session: AsyncSession, platform: str, delivery_id: str, lease_s: float) -> bool:
    """Claim a delivery; False when it is done, or another worker's lease still runs.

    A claim is a lease: a worker that died leaves it to expire, and the next
    redelivery is answered; a finished delivery is never answered again.
    """
    row = await session.execute(
        text(
            "INSERT INTO processed_events (platform, event_id, status, lease_until)"
            " VALUES (:platform, :id, 'claimed', now() + make_interval(secs => :lease))"
            " ON CONFLICT (platform, event_id) DO UPDATE"
            " SET lease_until = EXCLUDED.lease_until, attempts = processed_events.attempts + 1"
            " WHERE processed_events.status <> 'done' AND processed_events.lease_until < now()"
            " RETURNING event_id"
        ),
        {"platform": platform, "id": delivery_id, "lease": lease_s},
    )
    return row.first() is not None


async def complete(session: AsyncSession, platform: str, delivery_id: str) -> None:
    """Mark a delivery answered: redeliveries find nothing to do."""
    await session.execute(
        text(
            "UPDATE processed_events SET status = 'done', completed_at = now()"
            " WHERE platform = :platform AND event_id = :id"
        ),
        {"platform": platform, "id": delivery_id},
    )


async def release(session: AsyncSession, platform: str, delivery_id: str) -> None:
    """Give a claim up at once (the reply could not be posted): a redelivery is answered."""
    await session.execute(
        text(
            "UPDATE processed_events SET lease_until = now() - interval '1 second'"
            " WHERE platform = :platform AND event_id = :id AND status <> 'done'"
        ),
        {"platform": platform, "id": delivery_id},
    )


async def count_message(session: AsyncSession, platform: str, user_id: str) -> int:
    """Count one message in the user's current one-minute window; the count so far."""
    row = await session.execute(
        text(
            "INSERT INTO rate_limits (platform, user_id, window_start, count)"
            " VALUES (:platform, :user, date_trunc('minute', now()), 1)"
            " ON CONFLICT (platform, user_id) DO UPDATE SET"
            " count = CASE WHEN rate_limits.window_start = EXCLUDED.window_start"
            " THEN rate_limits.count + 1 ELSE 1 END, window_start = EXCLUDED.window_start"
            " RETURNING count"
        ),
        {"platform": platform, "user": user_id},
    )
    return int(row.scalar_one())


async def notice_due(session: AsyncSession, platform: str, user_id: str) -> bool:
    """True once per window for a user over the limit: they are told once, not per message."""
    row = await session.execute(
        text(
            "UPDATE rate_limits SET noticed_window = window_start"
            " WHERE platform = :platform AND user_id = :user"
            " AND noticed_window IS DISTINCT FROM window_start RETURNING user_id"
        ),
        {"platform": platform, "user": user_id},
    )
    return row.first() is not None


async def uncount_message(session: AsyncSession, platform: str, user_id: str) -> None:
    """Take one message back out of the user's window (counted before its sender was
    known to be spared), when that window is still the current one."""
    await session.execute(
        text(
            "UPDATE rate_limits SET count = greatest(count - 1, 0)"
            " WHERE platform = :platform AND user_id = :user"
            " AND window_start = date_trunc('minute', now())"
        ),
        {"platform": platform, "user": user_id},
    )
