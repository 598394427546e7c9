"""Stable pseudonymous ids for users and conversations: a keyed hash, never the raw id."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from storage.db import Database
from storage.repositories import instance_secrets

SECRET_NAME = "user_hash_key"


class Pseudonyms:
    """HMAC-SHA256 of (kind, platform, id) under the installation's key."""

    def __init__(self, key: str) -> None:
        self._key = key.encode()

    def of(self, kind: str, platform: str, raw: str | None) -> str | None:
        """The pseudonym of a user or conversation (None for none)."""
        if not raw:
            return None
        digest = hmac.new(self._key, f"{kind}:{platform}:{raw}".encode(), hashlib.sha256)
        return f"{kind[0]}_{digest.hexdigest()[:24]}"

    def user(self, platform: str, user_id: str | None) -> str | None:
        """The pseudonymous user id traces and turn records carry."""
        return self.of("user", platform, user_id)

    def conversation(self, platform: str, key: str | None) -> str | None:
        """The pseudonymous session id of a conversation."""
        return self.of("conversation", platform, key)


async def load_pseudonyms(db: Database, configured: str | None) -> Pseudonyms:
    """USER_HASH_KEY when set; otherwise the key generated once and kept in the database."""
    if configured:
        return Pseudonyms(configured)
    async with db.transaction() as session:
        key = await instance_secrets.instance_secret(
            session, SECRET_NAME, lambda: secrets.token_hex(32)
        )
    return Pseudonyms(key)
