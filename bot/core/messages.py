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
    "Audience",
    "Button",
    "ErrorReply",
    "FinalAnswer",
    "Grant",
    "InboundMessage",
    "Notifier",
    "Outbound",
    "Progress",
    "Queued",
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
    ref: str | None = None  # the platform's handle (file id, URL): kept for a pending offer
    # what the file is to the asker: "file" (a document), or a question said another way:
    # "voice" (a voice note or audio file, transcribed) or "photo" (read by OCR)
    kind: str = "file"
    seconds: int | None = None  # a voice message's length, as the platform reports it

    async def read(self) -> bytes:
        """The file's bytes."""
        if self.data is not None:
            return self.data
        if self.fetch is None:
            raise ValueError(f"no way to download {self.name!r}")
        return await self.fetch()


@dataclass(frozen=True)
class Grant:
    """What a credential the core verified grants its holder (an HTTP API key).

    Built only by the core (`bot.core.admin.api_keys`) from the key's stored row, never
    from input; the core reads it for the `api` platform alone.
    """

    key_id: int
    name: str
    collections: tuple[str, ...]
    admin: bool = False
    rate_limit: int | None = None  # per minute; None: API_RATE_LIMIT_PER_MINUTE


@dataclass(frozen=True)
class Audience:
    """What the adapter learned about who is asking, in platform-neutral terms.

    `guest` is true for anyone outside the home organisation (a Slack Connect
    user, a guest account) and for anyone the adapter could not identify: the
    default is the least privileged audience, so a message built without facts
    never reads more than a guest. `channel` is where the message was sent (a
    Slack channel id), for per-channel collections. Only platforms with guests
    (Slack) read these facts; Telegram and the console ignore them.

    `verified` is true when the adapter learned the sender's facts (so a listed
    admin refused as a guest is told they are not an admin, and one whose facts
    could not be learned is told their account could not be verified).
    `shared_channel` is true when the reply is posted where outsiders may read
    it (a Slack Connect or otherwise shared channel, or a channel whose facts
    could not be learned): the message then reads only the guest collections,
    whoever asks, while admin rights still follow the sender.
    """

    guest: bool = True
    channel: str | None = None
    verified: bool = False
    shared_channel: bool = False
    grant: Grant | None = None  # the API key the core verified (the `api` platform only)
    # `pending`: the adapter stored the message before it could look the sender up
    # (someone it has no facts on yet: the ack does not wait for the platform's API).
    # The core has the platform's resolver learn the facts before the turn; until then
    # the fields above read as the least privileged audience. `sender_team` (what the
    # platform said the sender's team is) and `in_channel` (everyone in `channel` reads
    # the reply) are what the resolver needs.
    pending: bool = False
    sender_team: str | None = None
    in_channel: bool = False


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
    audience: Audience = Audience()  # who is asking, as the adapter found out (default: a guest)
    # the sender asked for its files to be added (Telegram `/upload` caption or reply,
    # Slack `upload` in a DM); without it a file is only offered, never stored
    upload_intent: bool = False
    direct: bool = False  # a one-to-one chat with the bot (a DM, a private chat)
    # where the adapter posts the reply (a chat id, a thread, a message to reply to):
    # JSON only, opaque to the core, stored with the message in the inbox so any
    # worker can answer it after a crash
    route: dict[str, Any] = field(default_factory=dict)
    # the bot's own message this one answers ("chat:message": a Slack thread's parent,
    # the Telegram message replied to): a staff reply under a hand-off case's card
    reply_to: str | None = None
    # search knobs a caller may set for its own turn (the HTTP API's `top_k`, `threshold`)
    top_k: int | None = None
    threshold: float | None = None
    # a conversation its caller keeps itself (an OpenAI-compatible client sends it whole):
    # ("user" | "assistant", text) pairs read as the turn's history instead of the stored
    # one; like the search knobs, held in memory only (the call waits for its own turn)
    history: tuple[tuple[str, str], ...] | None = None
    # False where the caller has no "Ask a person" to press (an OpenAI-compatible chat
    # client, an MCP tool): a refusal then does not point at one
    offers_people: bool = True


@dataclass(frozen=True)
class Reply:
    """A fixed reply that is not an answer (command output, upload receipt, refusal)."""

    text: str
    language: str
    kind: str  # command | upload_received | rate_limited | not_admin | unknown_command | ...
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Button:
    """A button under a reply: `action` and `value` come back when it is pressed.

    The adapter renders it (Telegram callback data, a Slack action) and hands a
    press to `ServingCore.press`, which checks who pressed it.
    """

    action: str  # "upload" (a pending file) | "held" (an upload held for personal data)
    value: str  # "<offer id>:<public|internal|ignore>" or "<upload id>:<publish|cancel>"
    label: str


@dataclass(frozen=True)
class Queued:
    """The question is in hand but its turn waits (every turn slot is busy, or the
    conversation's previous turn still runs). Adapters may say so (Slack: a pending
    task); it is not work under way, so no typing or "thinking" indicator."""

    text: str
    language: str


# everything the core yields: a turn's events, or a fixed reply (command, upload, limit)
Outbound = TurnEvent | Reply | Queued


@dataclass(frozen=True)
class UploadOutcome:
    """What an upload job (or a source sync asked for from chat) did, for the adapter to
    tell the admin who sent the file (or asked)."""

    upload_id: int
    platform: str
    user_id: str
    conversation_key: str | None
    file_name: str
    title: str
    status: str  # added | replaced | unchanged | failed | held
    chunks: int
    reason: str | None
    text: str  # the message to send, in the uploader's language
    buttons: tuple[Button, ...] = ()  # a held upload: publish anyway / cancel
    # what the notice is about when not an upload (a source's sync: `sync:<job id>`)
    notice: str | None = None

    @property
    def about(self) -> str:
        """What the notice is about, as the outbox's once-only key names it."""
        return self.notice or f"upload:{self.upload_id}"


Notifier = Callable[[UploadOutcome], Awaitable[None]]
