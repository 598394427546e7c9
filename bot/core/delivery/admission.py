"""The rate limit: every message, command and button press counts in its sender's window.

An over-limit sender is told once per window (in their language) and then
meets silence: a notice per refused message would itself be the flood. Admins
and the console are never limited. Quick adapter-local actions (/start, a
button) are claimed and counted here in one step (`first_delivery`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.core.audiences import Audiences
from bot.core.messages import Audience, Grant, InboundMessage
from bot.settings import API_PLATFORM, CONSOLE_PLATFORMS, Settings
from storage.db import Database
from storage.repositories import deliveries
from textkit.catalog import say


@dataclass(frozen=True)
class Admission:
    """Whether a quick adapter-local action (a button, /start) runs, and what to say if not.

    `notice` is set once per rate-limit window for a user over the limit (in
    their language); later refusals in the window are silent.
    """

    run: bool
    notice: str | None = None

    def __bool__(self) -> bool:
        return self.run


class RateLimit:
    """RATE_LIMIT_PER_MINUTE applied to senders, counted in Postgres (shared by workers)."""

    def __init__(self, db: Database, settings: Settings, audiences: Audiences) -> None:
        self._db = db
        self._settings = settings
        self._audiences = audiences

    async def over(self, session: AsyncSession, message: InboundMessage) -> bool:
        """Count the message in its sender's window (in the caller's transaction);
        True when over the limit. `message.is_admin` must already come from settings."""
        limit = self.limit_of(message)
        if limit <= 0 or message.platform in CONSOLE_PLATFORMS:
            return False
        if message.is_admin and message.platform != API_PLATFORM:  # a key keeps its own limit
            return False
        count = await deliveries.count_message(session, message.platform, message.user_id)
        return count > limit

    def limit_of(self, message: InboundMessage) -> int:
        """Messages a minute this sender may send: an API key's own limit, else the
        platform's (API_RATE_LIMIT_PER_MINUTE, RATE_LIMIT_PER_MINUTE); 0 or less: none."""
        if message.platform != API_PLATFORM:
            return self._settings.rate_limit_per_minute
        grant = message.audience.grant
        if grant is not None and grant.rate_limit is not None:
            return grant.rate_limit
        return self._settings.api_rate_limit_per_minute

    async def notice(self, message: InboundMessage, language: str) -> str | None:
        """The rate-limit notice, the first time in a window; None after (silence).

        An API caller is told every time: each refused call needs its own answer (429).
        """
        limit = self.limit_of(message)
        if message.platform == API_PLATFORM:
            return say("rate_limited", language, limit=limit)
        async with self._db.transaction() as session:
            due = await deliveries.notice_due(session, message.platform, message.user_id)
        if not due:
            return None
        return say("rate_limited", language, limit=limit)

    async def count_call(self, grant: Grant) -> bool:
        """Count an HTTP API call that is not a question (those count as messages) in its
        key's rate limit; False when the key is over it."""
        audience = Audience(guest=False, grant=grant)
        # is_admin from settings, as for every message (see `pending_audiences.with_rights`)
        is_admin = self._audiences.is_admin(API_PLATFORM, grant.name, audience)
        caller = InboundMessage(
            API_PLATFORM, "", "", grant.name, audience=audience, is_admin=is_admin
        )
        async with self._db.transaction() as session:
            return not await self.over(session, caller)

    async def first_delivery(
        self,
        platform: str,
        delivery_id: str,
        user_id: str | None,
        language: str,
        audience: Audience | None = None,
    ) -> Admission:
        """Claim and complete at once; with `user_id`, counted in the user's limit."""
        async with self._db.transaction() as session:
            if not await deliveries.claim(session, platform, delivery_id, 0):
                return Admission(False)
            await deliveries.complete(session, platform, delivery_id)
            limited = False
            if user_id is not None:
                admin = self._audiences.is_admin(platform, user_id, audience)
                probe = InboundMessage(platform, delivery_id, "", user_id, is_admin=admin)
                limited = await self.over(session, probe)
        if limited:
            return Admission(False, await self.notice(probe, language))
        return Admission(True)
