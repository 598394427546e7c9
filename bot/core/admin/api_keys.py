"""API keys: made and revoked by the operator, checked on every HTTP API call.

A key is `rbk_` plus 32 random bytes (URL-safe base64), shown once when made;
only its SHA-256 is stored (a key has enough entropy that a slow hash buys
nothing, and every call checks one). A checked key becomes a `Grant` (its
collections, admin right and rate limit), the only way an API caller gets
rights. Checks are cached for a few seconds per key (a revoke takes effect
within `cache_s`), so a busy client does not cost a query per call.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Sequence

from bot.core.messages import Grant
from storage.db import Database
from storage.repositories import api_keys as keys_repo
from storage.repositories import audit as audit_repo
from storage.repositories.api_keys import KeyRow
from storage.upload_policy import collection_problem

KEY_PREFIX = "rbk_"
CACHE_S = 5.0
CACHE_ENTRIES = 10_000
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_SHOWN = len(KEY_PREFIX) + 6  # the characters a listing shows, to tell keys apart


class KeyInputError(ValueError):
    """A key cannot be made as asked; the message says why."""


def key_hash(key: str) -> str:
    """The stored form of a key."""
    return hashlib.sha256(key.encode()).hexdigest()


class ApiKeys:
    """Makes, lists, revokes and checks API keys (each change audited as the operator's)."""

    def __init__(self, db: Database, cache_s: float = CACHE_S) -> None:
        self._db = db
        self._cache_s = cache_s
        # oldest first: guessed keys push out the oldest checks, never the whole cache
        self._checked: OrderedDict[str, tuple[float, Grant | None]] = OrderedDict()
        self._enabled: tuple[float, bool] = (-cache_s, False)

    async def create(
        self,
        name: str,
        collections: Sequence[str],
        *,
        admin: bool = False,
        rate_limit: int | None = None,
        by: str = "operator",
    ) -> tuple[KeyRow, str]:
        """A new key: (its row, the key itself, to show once). KeyInputError when the name
        is taken or malformed, a collection name is not one, or the rate is not positive."""
        if not _NAME.fullmatch(name):
            raise KeyInputError(
                f"bad key name {name!r}: letters, digits, '.', '_' and '-', up to 64"
            )
        wanted = tuple(dict.fromkeys(c.strip() for c in collections if c.strip()))
        if not wanted:
            raise KeyInputError("a key needs at least one collection (--collections public)")
        for collection in wanted:
            problem = collection_problem(collection)
            if problem is not None:
                raise KeyInputError(problem)
        if rate_limit is not None and rate_limit < 0:
            raise KeyInputError("--rate must be 0 (no limit) or more calls a minute")
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        async with self._db.transaction() as session:
            if await keys_repo.name_taken(session, name):
                raise KeyInputError(f"a key named {name!r} exists (names are never reused)")
            row = await keys_repo.create(
                session, name, key_hash(key), key[:_SHOWN], wanted, admin, rate_limit
            )
            detail = f"collections={','.join(wanted)} admin={admin} rate={rate_limit}"
            await audit_repo.audit(session, "cli", by, "apikey:create", name, "ok", detail)
        self._enabled = (-self._cache_s, False)
        return row, key

    async def list(self) -> list[KeyRow]:
        """Every key, revoked ones too (never a key itself: only its first characters)."""
        async with self._db.sessions() as session:
            return await keys_repo.list_keys(session)

    async def revoke(self, name: str, by: str = "operator") -> bool:
        """Revoke a key by name; False when there is no such active key."""
        async with self._db.transaction() as session:
            done = await keys_repo.revoke(session, name)
            result = "ok" if done else "not_found"
            await audit_repo.audit(session, "cli", by, "apikey:revoke", name, result)
        self._checked.clear()
        self._enabled = (-self._cache_s, False)
        return done

    async def verify(self, key: str) -> Grant | None:
        """The grant of an active key; None for anything else (unknown, revoked, malformed)."""
        if not key.startswith(KEY_PREFIX) or len(key) > 200:
            return None
        digest = key_hash(key)
        now = time.monotonic()
        cached = self._checked.get(digest)
        if cached is not None and now - cached[0] < self._cache_s:
            return cached[1]
        async with self._db.transaction() as session:
            row = await keys_repo.find_active(session, digest)
            if row is not None:
                await keys_repo.note_use(session, row.id)
        grant = None if row is None else _grant(row)
        self._checked[digest] = (now, grant)
        self._checked.move_to_end(digest)
        while len(self._checked) > CACHE_ENTRIES:  # guessed keys must not grow it forever
            self._checked.popitem(last=False)
        return grant

    async def admit(self, key: str) -> tuple[bool, Grant | None]:
        """(whether the API is on, the key's grant): an HTTP call's one trip to the core."""
        if not await self.enabled():
            return False, None
        return True, await self.verify(key) if key else None

    async def enabled(self) -> bool:
        """True when some key is active (none: the API is off)."""
        now = time.monotonic()
        if now - self._enabled[0] < self._cache_s:
            return self._enabled[1]
        async with self._db.sessions() as session:
            on = await keys_repo.any_active(session)
        self._enabled = (now, on)
        return on


def _grant(row: KeyRow) -> Grant:
    return Grant(row.id, row.name, row.collections, row.admin, row.rate_limit)
