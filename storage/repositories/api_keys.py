"""API keys: create, list, revoke and find by hash (never commits; see migration 0011)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class KeyRow:
    """One stored key (never its secret: only the hash's row)."""

    id: int
    name: str
    prefix: str
    collections: tuple[str, ...]
    admin: bool
    rate_limit: int | None
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


_COLUMNS = "id, name, prefix, collections, admin, rate_limit, created_at, last_used_at, revoked_at"


def _row(values: Sequence[object]) -> KeyRow:
    (id_, name, prefix, collections, admin, rate, created, used, revoked) = values
    return KeyRow(
        int(id_),  # type: ignore[call-overload]
        str(name),
        str(prefix),
        tuple(collections),  # type: ignore[arg-type]
        bool(admin),
        None if rate is None else int(rate),  # type: ignore[call-overload]
        created,  # type: ignore[arg-type]
        used,  # type: ignore[arg-type]
        revoked,  # type: ignore[arg-type]
    )


async def name_taken(session: AsyncSession, name: str) -> bool:
    """True when a key (revoked or not) already has this name."""
    row = await session.execute(text("SELECT 1 FROM api_keys WHERE name = :n"), {"n": name})
    return row.first() is not None


async def create(
    session: AsyncSession,
    name: str,
    key_hash: str,
    prefix: str,
    collections: Sequence[str],
    admin: bool,
    rate_limit: int | None,
) -> KeyRow:
    """Store a new key's hash; its row."""
    row = await session.execute(
        text(
            "INSERT INTO api_keys (name, key_hash, prefix, collections, admin, rate_limit)"
            " VALUES (:name, :hash, :prefix, :collections, :admin, :rate)"
            f" RETURNING {_COLUMNS}"
        ),
        {
            "name": name,
            "hash": key_hash,
            "prefix": prefix,
            "collections": list(collections),
            "admin": admin,
            "rate": rate_limit,
        },
    )
    return _row(row.one())


async def list_keys(session: AsyncSession) -> list[KeyRow]:
    """Every key, oldest first (revoked ones too)."""
    rows = await session.execute(text(f"SELECT {_COLUMNS} FROM api_keys ORDER BY id"))
    return [_row(r) for r in rows]


async def revoke(session: AsyncSession, name: str) -> bool:
    """Revoke a key by name; False when there is no such active key."""
    row = await session.execute(
        text(
            "UPDATE api_keys SET revoked_at = now()"
            " WHERE name = :n AND revoked_at IS NULL RETURNING id"
        ),
        {"n": name},
    )
    return row.first() is not None


async def find_active(session: AsyncSession, key_hash: str) -> KeyRow | None:
    """The active key with this hash; None for an unknown or revoked key."""
    row = await session.execute(
        text(f"SELECT {_COLUMNS} FROM api_keys WHERE key_hash = :h AND revoked_at IS NULL"),
        {"h": key_hash},
    )
    found = row.first()
    return None if found is None else _row(found)


async def note_use(session: AsyncSession, key_id: int) -> None:
    """Note that a key was used (at most once a minute: not a write per call)."""
    await session.execute(
        text(
            "UPDATE api_keys SET last_used_at = now() WHERE id = :id"
            " AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')"
        ),
        {"id": key_id},
    )


async def any_active(session: AsyncSession) -> bool:
    """True when at least one key is not revoked (no key: the API is off)."""
    row = await session.execute(text("SELECT 1 FROM api_keys WHERE revoked_at IS NULL LIMIT 1"))
    return row.first() is not None
