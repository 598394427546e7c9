"""Platform-neutral messages: what an adapter hands the core, and what it gets back to render.

A turn's events (Progress, Token, Reset, FinalAnswer, ErrorReply) are defined
once in graph.events and re-exported here, so adapters import every message
from the core.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from graph.events import ErrorReply, FinalAnswer, Progress, Reset, Token, TurnEvent, TurnResult

__all__ = [
    "Attachment",
    "ErrorReply",
    "FinalAnswer",
    "InboundMessage",
    "Notifier",
    "Outbound",
    "Progress",
    "Reply",
    "Reset",
    "Token",
    "TurnEvent",
    "TurnResult",
    "UploadOutcome",
]


@dataclass(frozen=True)
class Attachment:
    """A file sent with a message. `fetch` downloads it (the adapter knows how).

    `platform_limit` is the most the platform lets a bot download (Telegram's
    Bot API: 20 MB), checked with the reported size before downloading.
    """

    name: str
    size: int | None = None  # as the platform reports it: checked before downloading
    platform_limit: int | None = None
    mime: str | None = None
    fetch: Callable[[], Awaitable[bytes]] | None = None
    data: bytes | None = None  # already in hand (the console, tests)

    async def read(self) -> bytes:
        """The file's bytes."""
        if self.data is not None:
            return self.data
        if self.fetch is None:
            raise ValueError(f"no way to download {self.name!r}")
        return await self.fetch()


@dataclass(frozen=True)
class InboundMessage:
    """One delivery from a platform, translated by its adapter.

    `delivery_id` identifies the delivery for exactly-once handling (Slack: the
    channel and message ts, or a slash command's trigger id; Telegram: the chat
    id and message id, so one message arriving in two updates is one delivery).
    `conversation_key` names the conversation whose history follow-ups use (a
    thread, a private chat). `command` is set when the adapter recognised a
    command (`/ragbot docs`, `/forms`, a DM's leading keyword), with its
    arguments in `args`.
    """

    platform: str
    delivery_id: str
    conversation_key: str
    user_id: str
    text: str = ""
    language_hint: str | None = None  # the platform's idea of the user's language
    language: str | None = None  # the language the user chose (Telegram /lang): wins
    attachments: tuple[Attachment, ...] = ()
    command: str | None = None
    args: tuple[str, ...] = ()
    is_admin: bool = False  # filled in by the core from settings, never trusted from input


@dataclass(frozen=True)
class Reply:
    """A fixed reply that is not an answer (command output, upload receipt, refusal)."""

    text: str
    language: str
    kind: str  # command | upload_received | rate_limited | not_admin | unknown_command | ...
    data: dict[str, Any] = field(default_factory=dict)


# everything the core yields: a turn's events, or a fixed reply (command, upload, limit)
Outbound = TurnEvent | Reply


@dataclass(frozen=True)
class UploadOutcome:
    """What an upload job did, for the adapter to tell the admin who sent the file."""

    upload_id: int
    platform: str
    user_id: str
    conversation_key: str | None
    file_name: str
    title: str
    status: str  # added | replaced | unchanged | failed
    chunks: int
    reason: str | None
    text: str  # the message to send, in the uploader's language


Notifier = Callable[[UploadOutcome], Awaitable[None]]
