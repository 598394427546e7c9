"""Who is asking in Slack, and who else reads the reply.

The asker's facts come from the payload (the acting user's team) and
`users.info` (their team and guest flags), compared with the bot's own team
from `auth.test`; a channel's from `conversations.info` (its shared flags).
Both are cached for SLACK_USER_CACHE_SECONDS; failures are not cached. A
message is acknowledged with what the cache knows (`known`): a sender or
channel not seen yet is looked up after the ack, before the turn (`resolve`,
called by the core), and reads as a guest until then. Any
doubt — an API error, a timeout, a missing field — makes the sender a guest and
the channel a shared one: the core then gives the guest collections and no
admin rights, never internal.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.messages import Audience
from bot.slack import api_errors

logger = logging.getLogger(__name__)

LOOKUP_TIMEOUT_S = 5.0  # a slow users.info must not hold the answer up: past this, a guest
_MAX_CACHED = 10_000
# a channel any of these mark is (or is about to be) read by other organisations or workspaces
_SHARED_FLAGS = ("is_shared", "is_ext_shared", "is_org_shared")
_PENDING_FLAGS = ("is_pending_ext_shared", "pending_shared", "pending_connected_team_ids")

T = TypeVar("T")


@dataclass(frozen=True)
class UserFacts:
    """What users.info said about one user."""

    team: str
    guest: bool  # restricted (multi-channel) or ultra-restricted (single-channel) guest
    locale: str | None = None  # their Slack language (`zh-TW`, `en-US`), when said


def facts_from(user: Any) -> UserFacts | None:
    """A users.info `user` object's facts; None when any of them is missing."""
    if not isinstance(user, dict):
        return None
    team = user.get("team_id")
    flags = (user.get("is_restricted"), user.get("is_ultra_restricted"))
    if not isinstance(team, str) or not team or not all(isinstance(f, bool) for f in flags):
        return None
    locale = user.get("locale")
    return UserFacts(
        team,
        any(flags) or bool(user.get("is_stranger")),
        locale if isinstance(locale, str) else None,
    )


def channel_shared(channel: Any) -> bool | None:
    """Whether outsiders may read a conversations.info `channel` (None: cannot tell).

    A DM is the asker's and the bot's alone; a channel is shared when any shared
    flag is set or a share is pending. A channel without its shared flags is unknown.
    """
    if not isinstance(channel, dict):
        return None
    if channel.get("is_im") is True:
        return False
    flags = [channel.get(name) for name in _SHARED_FLAGS]
    if not all(isinstance(f, bool) for f in flags):
        return None
    return any(flags) or any(bool(channel.get(name)) for name in _PENDING_FLAGS)


def slack_error(exc: Exception) -> tuple[str, str]:
    """(error, needed scope) of a failed Web API call ("" when not said, or when the
    answer was not the Web API's JSON: a proxy's error page)."""
    return api_errors.error(exc), api_errors.needed(exc)


class _Cache(Generic[T]):
    """Facts per id until they expire (ttl 0: nothing kept)."""

    def __init__(self, ttl_s: float) -> None:
        self._ttl = ttl_s
        self._items: dict[str, tuple[float, T]] = {}

    def get(self, key: str, now: float) -> T | None:
        cached = self._items.get(key)
        return cached[1] if cached is not None and cached[0] > now else None

    def put(self, key: str, value: T, now: float) -> None:
        if self._ttl <= 0:
            return
        if len(self._items) >= _MAX_CACHED:  # drop the expired; if none, start over
            self._items = {k: v for k, v in self._items.items() if v[0] > now}
            if len(self._items) >= _MAX_CACHED:
                self._items.clear()
        self._items[key] = (now + self._ttl, value)


class SlackAudiences:
    """Turns a Slack user (and where the reply is posted) into the core's Audience."""

    def __init__(
        self,
        client: AsyncWebClient,
        ttl_s: float,
        timeout_s: float = LOOKUP_TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`clock` gives the seconds the cache's ttl is counted in."""
        self._client = client
        self._clock = clock
        self._timeout = timeout_s
        self._home: str | None = None
        self._bot_user: str | None = None
        self._users: _Cache[UserFacts] = _Cache(ttl_s)
        self._channels: _Cache[bool] = _Cache(ttl_s)
        self._told: set[str] = set()  # missing scopes already logged as errors
        self._asking: dict[str, asyncio.Future[Any]] = {}  # lookups under way, by key

    async def audience(
        self,
        user_id: str | None,
        payload_team: str | None,
        channel: str | None,
        *,
        in_channel: bool = False,
    ) -> Audience:
        """The sender's audience: a member only when every fact says home team, no guest.

        `in_channel`: the reply is posted in `channel` for everyone there to read
        (not a DM, not an ephemeral reply), so a shared or unknown channel makes
        the message read only the guest collections.
        """
        # at once: one Slack round trip, not two (the home team is known from the start)
        home, facts, readable = await asyncio.gather(
            self.home_team(),
            self.user(user_id) if user_id else _nothing(),
            self.channel(channel) if in_channel and channel else _nothing(),
        )
        return _audience(home, facts, readable, payload_team, channel, in_channel)

    def known(
        self,
        user_id: str | None,
        payload_team: str | None,
        channel: str | None,
        *,
        in_channel: bool = False,
    ) -> Audience:
        """`audience()`'s answer from what is remembered, without a Slack call; when a fact
        is not remembered, a pending audience (`Audience.pending`: a guest until the core
        has `resolve` learn it, after the ack)."""
        now = self._clock()
        facts = self._users.get(user_id, now) if user_id else None
        readable = self._channels.get(channel, now) if in_channel and channel else None
        if (
            self._home is not None
            and (facts is not None or not user_id)
            and (readable is not None or not (in_channel and channel))
        ):
            return _audience(self._home, facts, readable, payload_team, channel, in_channel)
        return Audience(
            channel=channel,
            shared_channel=in_channel,
            pending=True,
            sender_team=payload_team,
            in_channel=in_channel,
        )

    async def resolve(self, pending: Audience, user_id: str | None) -> Audience:
        """A pending audience learned now: the lookups `known` did not make."""
        return await self.audience(
            user_id, pending.sender_team, pending.channel, in_channel=pending.in_channel
        )

    async def home_team(self) -> str | None:
        """The bot's own team id (auth.test), remembered once known."""
        if self._home is None:
            try:
                reply = await asyncio.wait_for(self._client.auth_test(), self._timeout)
                team, user = reply.get("team_id"), reply.get("user_id")
                self._home = team if isinstance(team, str) and team else None
                self._bot_user = user if isinstance(user, str) and user else None
            except Exception as exc:  # unknown home team: everyone is a guest for now
                logger.warning(
                    "slack auth.test failed, treating senders as guests: %s",
                    api_errors.describe(exc),
                )
        return self._home

    async def user(self, user_id: str) -> UserFacts | None:
        """users.info facts for `user_id`, cached; None when they cannot be learned.
        Concurrent askers about one user share one call."""
        cached = self._users.get(user_id, self._clock())
        if cached is not None:
            return cached
        return await self._shared(f"user:{user_id}", lambda: self._ask_user(user_id))

    async def _ask_user(self, user_id: str) -> UserFacts | None:
        now = self._clock()
        try:
            reply = await asyncio.wait_for(
                self._client.users_info(user=user_id, include_locale=True), self._timeout
            )
            facts = facts_from(reply.get("user"))
        except Exception as exc:  # error, timeout, network: a guest, and asked again next time
            self._tell_missing_scope(exc, "users:read", "users.info")
            logger.warning(
                "slack users.info failed for a user, treating as guest: %s",
                api_errors.describe(exc),
            )
            return None
        if facts is None:
            logger.warning("slack users.info lacked team or guest flags: treating as guest")
            return None
        self._users.put(user_id, facts, now)
        return facts

    async def channel(self, channel_id: str) -> bool | None:
        """Whether outsiders may read `channel_id` (conversations.info), cached; None: unknown.
        Concurrent askers about one channel share one call."""
        cached = self._channels.get(channel_id, self._clock())
        if cached is not None:
            return cached
        return await self._shared(f"channel:{channel_id}", lambda: self._ask_channel(channel_id))

    async def _ask_channel(self, channel_id: str) -> bool | None:
        now = self._clock()
        try:
            reply = await asyncio.wait_for(
                self._client.conversations_info(channel=channel_id), self._timeout
            )
            shared = channel_shared(reply.get("channel"))
        except Exception as exc:  # treated as shared, and asked again next time
            self._tell_missing_scope(exc, "channels:read", "conversations.info")
            logger.warning(
                "slack conversations.info failed, answering from guest collections: %s",
                api_errors.describe(exc),
            )
            return None
        if shared is None:
            logger.warning("slack conversations.info lacked shared flags: a shared channel")
            return None
        self._channels.put(channel_id, shared, now)
        return shared

    async def _shared(self, key: str, ask: Callable[[], Awaitable[T]]) -> T:
        """The answer of the call under way for `key`, or of a new one: a new user's
        messages arriving together (or a channel's) cost one Slack call, not one each.
        Shielded: an asker that goes away does not cancel the others' call."""
        call = self._asking.get(key)
        if call is None:
            call = asyncio.ensure_future(ask())
            self._asking[key] = call
            call.add_done_callback(lambda _: self._asking.pop(key, None))
        return cast(T, await asyncio.shield(call))

    async def check_access(self) -> None:
        """At start: can users.info be read (on the bot's own user)? Logs, never raises.

        Without `users:read` every sender would silently be a guest: say so once,
        loudly, instead of a warning per message.
        """
        await self.home_team()
        if self._bot_user is None:
            logger.error(
                "slack auth.test failed at start: every Slack user is treated as a guest "
                "(SLACK_GUEST_COLLECTIONS, no admin commands) until it succeeds"
            )
            return
        try:
            reply = await asyncio.wait_for(
                self._client.users_info(user=self._bot_user), self._timeout
            )
            if facts_from(reply.get("user")) is None:
                logger.error("slack users.info lacks team or guest flags: everyone is a guest")
        except Exception as exc:
            if not self._tell_missing_scope(exc, "users:read", "users.info"):
                logger.warning(
                    "slack users.info check at start failed: %s", api_errors.describe(exc)
                )

    def _tell_missing_scope(self, exc: Exception, default: str, method: str) -> bool:
        """One ERROR per missing scope naming it and what it costs; True if it was that."""
        error, needed = slack_error(exc)
        if error != "missing_scope":
            return False
        scope = needed or default
        if scope not in self._told:
            self._told.add(scope)
            cost = (
                "everyone is treated as a guest (SLACK_GUEST_COLLECTIONS, no admin commands)"
                if method == "users.info"
                else "channels are treated as shared (answers there use SLACK_GUEST_COLLECTIONS)"
            )
            logger.error(
                "the Slack app lacks the %s scope (%s: missing_scope): %s until it is added; "
                "reinstall the app with the scopes in bot/slack/manifest.yaml",
                scope,
                method,
                cost,
            )
        return True


def _audience(
    home: str | None,
    facts: UserFacts | None,
    readable: bool | None,
    payload_team: str | None,
    channel: str | None,
    in_channel: bool,
) -> Audience:
    """A member only when every fact says home team, no guest; a shared or unknown
    channel read by everyone there makes the message read the guest collections."""
    member = (
        home is not None
        and facts is not None
        and facts.team == home
        and not facts.guest
        and payload_team in (None, home)  # Slack Connect: the event names their team
    )
    return Audience(
        guest=not member,
        channel=channel,
        verified=home is not None and facts is not None,
        shared_channel=in_channel and (not channel or readable is not False),
    )


async def _nothing() -> None:
    """A lookup that is not needed (no user, or a reply nobody else reads)."""
    return None
