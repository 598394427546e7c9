"""chat_state rows: small per-platform values kept between updates (never commits)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def get(
    session: AsyncSession, platform: str, key: str, max_age_s: float | None = None
) -> str | None:
    """The value under `key`, or None (also when older than `max_age_s`)."""
    row = await session.execute(
        text(
            "SELECT value FROM chat_state WHERE platform = :platform AND key = :key"
            " AND (CAST(:age AS double precision) IS NULL"
            "      OR updated_at > now() - make_interval(secs => :age))"
        ),
        {"platform": platform, "key": key, "age": max_age_s},
    )
    return row.scalar_one_or_none()


async def get_many(session: AsyncSession, platform: str, keys: list[str]) -> dict[str, str]:
    """key → value for those of `keys` that are set."""
    rows = await session.execute(
        text("SELECT key, value FROM chat_state WHERE platform = :platform AND key = ANY(:keys)"),
        {"platform": platform, "keys": keys},
    )
    return {row.key: row.value for row in rows}


async def put(session: AsyncSession, platform: str, key: str, value: str) -> None:
    """Set `key` to `value`."""
    await session.execute(
        text(
            "INSERT INTO chat_state (platform, key, value) VALUES (:platform, :key, :value)"
            " ON CONFLICT (platform, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()"
        ),
        {"platform": platform, "key": key, "value": value},
    )


async def pop(session: AsyncSession, platform: str, key: str, max_age_s: float) -> str | None:
    """Remove `key` and return its value when it is younger than `max_age_s`."""
    row = await session.execute(
        text(
            "DELETE FROM chat_state WHERE platform = :platform AND key = :key"
            " RETURNING value, updated_at > now() - make_interval(secs => :age) AS fresh"
        ),
        {"platform": platform, "key": key, "age": max_age_s},
    )
    found = row.first()
    return found.value if found is not None and found.fresh else None
