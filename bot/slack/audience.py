"""Who is asking in Slack: a home-team employee, or a guest / another organisation's user.

The facts come from the payload (the acting user's team) and `users.info`
(their team and guest flags), compared with the bot's own team from
`auth.test`. Answers are cached for SLACK_USER_CACHE_SECONDS. Any doubt — an
API error, a timeout, a missing field — makes the sender a guest: the core then
gives them the guest collections and no admin rights, never internal.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.messages import Audience

logger = logging.getLogger(__name__)

LOOKUP_TIMEOUT_S = 5.0  # a slow users.info must not hold the answer up: past this, a guest
_MAX_CACHED = 10_000


@dataclass(frozen=True)
class UserFacts:
    """What users.info said about one user."""

    team: str
    guest: bool  # restricted (multi-channel) or ultra-restricted (single-channel) guest


def facts_from(user: Any) -> UserFacts | None:
    """A users.info `user` object's facts; None when any of them is missing."""
    if not isinstance(user, dict):
        return None
    team = user.get("team_id")
    flags = (user.get("is_restricted"), user.get("is_ultra_restricted"))
    if not isinstance(team, str) or not team or not all(isinstance(f, bool) for f in flags):
        return None
    return UserFacts(team, any(flags) or bool(user.get("is_stranger")))


class SlackAudiences:
    """Turns a Slack user (and where they wrote) into the core's Audience."""

    def __init__(
        self, client: AsyncWebClient, ttl_s: float, timeout_s: float = LOOKUP_TIMEOUT_S
    ) -> None:
        self._client = client
        self._ttl = ttl_s
        self._timeout = timeout_s
        self._home: str | None = None
        self._users: dict[str, tuple[float, UserFacts]] = {}

    async def audience(
        self, user_id: str | None, payload_team: str | None, channel: str | None
    ) -> Audience:
        """The sender's audience: a member only when every fact says home team, no guest."""
        home = await self.home_team()
        facts = await self.user(user_id) if user_id else None
        member = (
            home is not None
            and facts is not None
            and facts.team == home
            and not facts.guest
            and payload_team in (None, home)  # Slack Connect: the event names their team
        )
        return Audience(guest=not member, channel=channel)

    async def home_team(self) -> str | None:
        """The bot's own team id (auth.test), remembered once known."""
        if self._home is None:
            try:
                reply = await asyncio.wait_for(self._client.auth_test(), self._timeout)
                team = reply.get("team_id")
                self._home = team if isinstance(team, str) and team else None
            except Exception as exc:  # unknown home team: everyone is a guest for now
                logger.warning("slack auth.test failed, treating senders as guests: %s", exc)
        return self._home

    async def user(self, user_id: str) -> UserFacts | None:
        """users.info facts for `user_id`, cached; None when they cannot be learned."""
        now = time.monotonic()
        cached = self._users.get(user_id)
        if cached is not None and cached[0] > now:
            return cached[1]
        try:
            reply = await asyncio.wait_for(self._client.users_info(user=user_id), self._timeout)
            facts = facts_from(reply.get("user"))
        except Exception as exc:  # error, timeout, network: a guest, and asked again next time
            logger.warning("slack users.info failed for a user, treating as guest: %s", exc)
            return None
        if facts is None:
            logger.warning("slack users.info lacked team or guest flags: treating as guest")
            return None
        if self._ttl > 0:
            self._remember(user_id, facts, now)
        return facts

    def _remember(self, user_id: str, facts: UserFacts, now: float) -> None:
        if len(self._users) >= _MAX_CACHED:  # drop the expired; if none, start over
            self._users = {k: v for k, v in self._users.items() if v[0] > now}
            if len(self._users) >= _MAX_CACHED:
                self._users.clear()
        self._users[user_id] = (now + self._ttl, facts)
