"""Platform-neutral messages: what an adapter hands the core, and what it gets back to render."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.service import TurnResult


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
    channel and message ts; Telegram: the update id). `conversation_key` names
    the conversation whose history follow-ups use (a thread, a private chat).
    `command` is set when the adapter recognised a command (`/ragbot docs`,
    `/forms`, a DM's leading keyword), with its arguments in `args`.
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
class Progress:
    """A step of the turn finished; `text` is what to show (None: nothing to show)."""

    step: str
    text: str | None
    language: str


@dataclass(frozen=True)
class Token:
    """A piece of the answer as it is generated."""

    text: str


@dataclass(frozen=True)
class Reset:
    """Drop the streamed tokens: the model failed mid-answer and another answer follows."""


@dataclass(frozen=True)
class FinalAnswer:
    """The checked answer with its citations and forms; `message_id` is what votes point at."""

    text: str
    language: str
    citations: list[dict[str, Any]]
    forms: list[dict[str, Any]]
    message_id: int | None
    result: TurnResult


@dataclass(frozen=True)
class Reply:
    """A fixed reply that is not an answer (command output, upload receipt, refusal)."""

    text: str
    language: str
    kind: str  # command | upload_received | rate_limited | not_admin | unknown_command | ...
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ErrorReply:
    """Something failed; `text` is a clear message for the user, in their language."""

    text: str
    language: str
    trace_id: str | None = None


Outbound = Progress | Token | Reset | FinalAnswer | Reply | ErrorReply


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
