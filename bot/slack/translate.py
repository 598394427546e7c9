"""Slack payloads → the core's InboundMessage (pure functions, no I/O)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from bot.core.commands import COMMANDS, parse_words
from bot.core.messages import Attachment, InboundMessage

PLATFORM = "slack"
_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
# edits, deletions, joins, bot posts: nothing to answer
_IGNORED_SUBTYPES = frozenset(
    {
        "message_changed",
        "message_deleted",
        "bot_message",
        "channel_join",
        "channel_leave",
        "thread_broadcast",
        "message_replied",
        "channel_topic",
        "channel_purpose",
        "tombstone",
    }
)

Fetcher = Callable[[str], Awaitable[bytes]]


def conversation_key(channel: str, thread_ts: str) -> str:
    """Thread = conversation."""
    return f"{channel}:{thread_ts}"


def split_key(key: str) -> tuple[str, str]:
    """(channel, thread ts) of a conversation key."""
    channel, _, thread_ts = key.partition(":")
    return channel, thread_ts


def is_ignorable(event: dict[str, Any], bot_user_id: str | None) -> bool:
    """Bots (this one included), edits and housekeeping events."""
    if event.get("bot_id") or event.get("subtype") in _IGNORED_SUBTYPES:
        return True
    return bool(bot_user_id) and event.get("user") == bot_user_id


def mentions(event: dict[str, Any], bot_user_id: str | None) -> bool:
    """The message @-mentions the bot."""
    return bool(bot_user_id) and bot_user_id in _MENTION.findall(event.get("text") or "")


def strip_mentions(text: str, bot_user_id: str | None) -> str:
    """The text without the bot's own @-mention."""
    if not bot_user_id:
        return text.strip()
    return re.sub(rf"<@{bot_user_id}(?:\|[^>]*)?>", " ", text).strip()


def dm_command(text: str) -> tuple[str | None, tuple[str, ...]]:
    """In a DM, a leading keyword (`docs`, `delete "Old title"`, …) is a command."""
    words = parse_words(text)
    if words and words[0].lower() in COMMANDS:
        return words[0].lower(), tuple(words[1:])
    return None, ()


def inbound_message(
    event: dict[str, Any], bot_user_id: str | None, fetch: Fetcher
) -> InboundMessage:
    """A mention, DM or thread reply (with any shared files) as the core's message.

    The delivery id is the channel and message ts: a mention also arrives as a
    `message` event with another event id, and must be answered once.
    """
    channel, ts = event["channel"], event["ts"]
    text = strip_mentions(event.get("text") or "", bot_user_id)
    is_dm = event.get("channel_type") == "im"
    files = tuple(
        Attachment(
            name=f.get("name") or f.get("title") or f.get("id", "file"),
            size=f.get("size"),
            mime=f.get("mimetype"),
            fetch=_bind(fetch, f.get("url_private_download") or f.get("url_private") or ""),
        )
        for f in event.get("files") or ()
    )
    command, args = dm_command(text) if is_dm and not files else (None, ())
    return InboundMessage(
        platform=PLATFORM,
        delivery_id=f"{channel}:{ts}",
        conversation_key=conversation_key(channel, event.get("thread_ts") or ts),
        user_id=event.get("user", ""),
        text=text,
        attachments=files,
        command=command,
        args=args,
    )


def _bind(fetch: Fetcher, url: str) -> Callable[[], Awaitable[bytes]]:
    async def download() -> bytes:
        return await fetch(url)

    return download


def slash_command(payload: dict[str, Any]) -> InboundMessage:
    """`/ragbot docs` → the `docs` command (`/ragbot` alone is `help`)."""
    words = parse_words(payload.get("text") or "")
    name = words[0].lower() if words else "help"
    return InboundMessage(
        platform=PLATFORM,
        delivery_id=f"command:{payload.get('trigger_id') or payload.get('command_ts', '')}",
        conversation_key=f"{payload.get('channel_id', '')}:commands",
        user_id=payload.get("user_id", ""),
        text=payload.get("text") or "",
        command=name,
        args=tuple(words[1:]),
    )
