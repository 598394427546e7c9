"""Who may read and do what: the collections and admin rights of a sender, from settings.

Adapters report who a sender is (`Audience`: guest, channel, shared channel,
verified); this decides what follows from it. Fail closed: a sender the
adapter could not identify, on a platform with guests, is a guest.
"""

from __future__ import annotations

from bot.core.messages import Audience, InboundMessage, Reply
from bot.settings import API_PLATFORM, CONSOLE_PLATFORMS, Settings
from textkit.catalog import say


class Audiences:
    """The sender-facing rules of one deployment's settings."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    def is_admin(self, platform: str, user_id: str, audience: Audience | None = None) -> bool:
        """Admins come from settings; the console operator is always one.

        On a platform with guests (Slack) a guest, an outsider or a sender the
        adapter could not identify (`audience` None) is never an admin, listed or not.
        """
        if platform in CONSOLE_PLATFORMS:
            return True
        if platform == API_PLATFORM:  # an admin key, as the core verified it
            grant = audience.grant if audience is not None else None
            return grant is not None and grant.admin
        if self.is_guest(platform, audience):
            return False
        return user_id in self._settings.admin_ids(platform)

    def collections(
        self, platform: str, audience: Audience | None = None
    ) -> tuple[str, ...] | None:
        """The collections this asker on `platform` may read (None: all).

        Slack: guests and unidentified senders, and anyone in a shared channel (or
        one whose facts are unknown: everyone there reads the reply), read
        SLACK_GUEST_COLLECTIONS; the home team elsewhere reads SLACK_COLLECTIONS plus
        what SLACK_CHANNEL_COLLECTIONS adds for the channel. Other platforms: their
        setting, whoever asks. The HTTP API: the caller's key's collections (no key: none).
        """
        if platform == API_PLATFORM:  # never the settings' None ("everything")
            grant = audience.grant if audience is not None else None
            return grant.collections if grant is not None else ()
        if self.is_guest(platform, audience) or (audience is not None and audience.shared_channel):
            # never None ("everything") here: a platform without guest settings reads nothing
            return self._settings.guest_collections(platform) or ()
        allowed = self._settings.collections(platform)
        channel = audience.channel if audience is not None else None
        extra = self._settings.channel_collections(platform).get(channel or "", ())
        if allowed is None or not extra:
            return allowed
        return allowed + tuple(c for c in extra if c not in allowed)

    def is_guest(self, platform: str, audience: Audience | None) -> bool:
        """True on a platform with guests when the sender is one or is unknown (fail closed)."""
        if self._settings.guest_collections(platform) is None:
            return False  # Telegram, the console: no guest notion, the platform decides
        return audience is None or audience.guest

    def unverified_admin(self, message: InboundMessage) -> bool:
        """A listed admin refused only because the adapter could not learn who they are."""
        audience = message.audience
        return (
            not message.is_admin
            and self._settings.guest_collections(message.platform) is not None
            and (audience is None or not audience.verified)
            and message.user_id in self._settings.admin_ids(message.platform)
        )

    def refusal(self, message: InboundMessage, reply: Reply, language: str) -> Reply:
        """`not_admin` said to an unverified listed admin becomes "I couldn't verify you"."""
        if reply.kind != "not_admin" or not self.unverified_admin(message):
            return reply
        return Reply(say("admin_unverified", language), language, "admin_unverified")

    def readers(self, collection: str, language: str) -> str:
        """Who can read `collection`, in words: the chat audiences whose settings include it."""
        who = [
            say(f"readers:{platform}", language)
            for platform in ("slack", "telegram")
            if (readable := self._settings.collections(platform)) is None or collection in readable
        ]
        return ", ".join(who) or say("readers:none", language)
