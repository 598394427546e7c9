"""Per-installation secrets, created once (never commits)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def instance_secret(session: AsyncSession, name: str, generate: Callable[[], str]) -> str:
    """The installation's secret `name`, created once (concurrent callers get the same one)."""
    await session.execute(
        text(
            "INSERT INTO instance_secrets (name, value) VALUES (:name, :value)"
            " ON CONFLICT (name) DO NOTHING"
        ),
        {"name": name, "value": generate()},
    )
    row = await session.execute(
        text("SELECT value FROM instance_secrets WHERE name = :name"), {"name": name}
    )
    return str(row.scalar_one())
