"""Sign-in sessions of the admin console in the browser (`/admin`).

An admin API key is exchanged once for a session: a random id (the cookie's
value, never stored: only its SHA-256) and a CSRF token the page echoes in a
header on every change. A session lasts ADMIN_SESSION_HOURS; it ends sooner when
its key is revoked (the lookup joins the key) or at sign-out. Sign-in, refusals and
sign-out are audited under the key's name.

A person the identity provider vouches for (bot.core.admin.console_oidc decides who
is an admin) gets a session by email: no key, every collection (those configured,
holding documents or read by a key, looked up at each request), audited under the
email. Such a session ends when the sign-in is switched off (OIDC_ISSUER unset) or,
where admins are listed by email only, when the email is no longer listed (both are
read at start: a restart with the new settings ends it at the next request).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.core.admin.api_keys import ApiKeys
from bot.core.admin.audit import Actor, AuditLog
from bot.core.messages import Grant
from bot.settings import ADMIN_PAGE
from storage.db import Database
from storage.repositories import admin_console as console_repo


class SignInRefusedError(PermissionError):
    """The key cannot open the console: `reason` is `unknown` or `not_admin`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ConsoleSession:
    """A signed-in browser: its admin key's grant, the CSRF token and the session's end."""

    grant: Grant
    csrf: str
    expires_at: datetime
    email: str | None = None  # a person signed in through the identity provider

    @property
    def actor(self) -> Actor:
        """Who acts in the console's reports and answers: the key, by name."""
        return Actor(ADMIN_PAGE, self.grant.name, True)


@dataclass(frozen=True)
class Opened:
    """A new session: the id for the cookie (shown once) and the session itself."""

    session_id: str
    session: ConsoleSession


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


class ConsoleSessions:
    """Opens, finds and closes the console's sessions."""

    def __init__(
        self,
        db: Database,
        keys: ApiKeys,
        log: AuditLog,
        hours: float,
        configured: Collection[str] = (),
        people: Callable[[str], bool] | None = None,
    ) -> None:
        self._db = db
        self._keys = keys
        self._log = log
        self.hours = hours
        # a person's session reads these and every collection in use
        self._configured = frozenset(configured)
        # whether a person's session still holds (None: the provider's sign-in is off)
        self._people = people

    async def open(self, key: str) -> Opened:
        """A session for an admin key; SignInRefusedError (audited) for any other key."""
        grant = await self._keys.verify(key.strip())
        if grant is None or not grant.admin:
            reason = "unknown" if grant is None else "not_admin"
            who = "?" if grant is None else grant.name
            await self._log.audit(Actor(ADMIN_PAGE, who, False), "console:sign_in", None, reason)
            raise SignInRefusedError(reason)
        return await self._opened(grant, None)

    async def open_person(self, email: str) -> Opened:
        """A session for a person the identity provider vouched for and who is an admin
        (the caller decided): audited under the email."""
        return await self._opened(Grant(0, email, (), True, None), email)

    async def refused(self, who: str, reason: str) -> None:
        """Audit a sign-in refused before any session (the identity provider's sign-in)."""
        await self._log.audit(Actor(ADMIN_PAGE, who or "?", False), "console:sign_in", None, reason)

    async def _opened(self, grant: Grant, email: str | None) -> Opened:
        session_id = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        until = datetime.now(UTC) + timedelta(hours=self.hours)
        key_id = None if email else grant.key_id
        async with self._db.transaction() as session:
            await console_repo.purge_sessions(session)
            await console_repo.add_session(session, _hash(session_id), csrf, key_id, until, email)
        opened = ConsoleSession(grant, csrf, until, email)
        await self._log.audit(opened.actor, "console:sign_in", None, "ok")
        return Opened(session_id, opened)

    async def find(self, session_id: str) -> ConsoleSession | None:
        """The live session of a cookie's id (None: unknown, expired, key revoked)."""
        if not session_id or len(session_id) > 100:
            return None
        async with self._db.sessions() as session:
            row = await console_repo.find_session(session, _hash(session_id))
            if row is not None and row["email"]:
                if self._people is None or not self._people(row["email"]):
                    return None
                every = await console_repo.collections_in_use(session) | self._configured
                grant = Grant(0, row["email"], tuple(sorted(every)), True, None)
                return ConsoleSession(grant, row["csrf"], row["expires_at"], row["email"])
        if row is None:
            return None
        grant = Grant(
            row["key_id"], row["name"], tuple(row["collections"]), True, row["rate_limit"]
        )
        return ConsoleSession(grant, row["csrf"], row["expires_at"])

    async def close(self, session_id: str, who: ConsoleSession) -> None:
        """Sign out: the session is deleted (its cookie is worth nothing after)."""
        async with self._db.transaction() as session:
            await console_repo.delete_session(session, _hash(session_id))
        await self._log.audit(who.actor, "console:sign_out", None, "ok")
