"""Telegram messages → the core's InboundMessage, and the chat-state keys (pure, no I/O)."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Audio, Chat, Document, Message, MessageEntity, Update, User, Voice
from telegram.warnings import PTBDeprecationWarning

from bot.core.admin.commands import parse_words
from bot.core.messages import Attachment, InboundMessage

PLATFORM = "telegram"
DOWNLOAD_LIMIT = 20 * 1024 * 1024  # the Bot API's getFile limit for bots
# Telegram's command names → the core's (the rest are the same)
CORE_COMMANDS = {"deldoc": "delete"}
CORE_BUTTON = "cb"  # callback data prefix of the core's buttons (upload offers, held uploads)
# upload offers, held uploads, "Ask a person" (its answer's id), a hand-off case's buttons
CORE_ACTIONS = ("upload", "held", "handoff", "case")
STOPPED_GENERATION = "stopped_message_generation"  # Bot API 10.3, not yet in PTB
_COMMAND = re.compile(r"^/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{3,64}))?(?:\s+(.*))?$", re.DOTALL)


# --- chat-state keys ---------------------------------------------------------------


def language_key(user_id: int) -> str:
    """Where a user's /lang choice is kept."""
    return f"lang:{user_id}"


def current_key(chat_id: int) -> str:
    """Where a private chat's current conversation is kept (/new changes it)."""
    return f"conv:{chat_id}"


def message_key(chat_id: int, message_id: int) -> str:
    """Where the conversation of a bot message is kept (a reply to it continues it)."""
    return f"msg:{chat_id}:{message_id}"


# --- reading messages --------------------------------------------------------------


def is_private(chat: Chat) -> bool:
    """A one-to-one chat with the bot."""
    return chat.type == Chat.PRIVATE


def delivery_id(message: Message) -> str:
    """Chat and message id: the same message in two updates (or two workers) is one delivery."""
    return f"{message.chat_id}:{message.message_id}"


def chat_of(conversation_key: str) -> int | None:
    """The chat id a conversation key starts with."""
    head = conversation_key.split(":", 1)[0]
    return int(head) if head.lstrip("-").isdigit() else None


def mentions(message: Message, username: str, bot_id: int) -> bool:
    """The message (or caption) @-mentions the bot."""
    entities = message.parse_entities([MessageEntity.MENTION, MessageEntity.TEXT_MENTION])
    entities |= message.parse_caption_entities([MessageEntity.MENTION, MessageEntity.TEXT_MENTION])
    for entity, value in entities.items():
        if entity.type == MessageEntity.TEXT_MENTION and entity.user and entity.user.id == bot_id:
            return True
        if value.lower() == f"@{username.lower()}":
            return True
    return False


def replies_to_bot(message: Message, bot_id: int) -> bool:
    """The message is a reply to one of the bot's messages."""
    replied = message.reply_to_message
    return bool(replied and replied.from_user and replied.from_user.id == bot_id)


def addressed(message: Message, username: str, bot_id: int) -> bool:
    """Private chats: always; groups: only when mentioned or replied to."""
    return (
        is_private(message.chat)
        or mentions(message, username, bot_id)
        or replies_to_bot(message, bot_id)
    )


def strip_mention(text: str, username: str) -> str:
    """The text without the bot's @-mention."""
    return re.sub(rf"@{re.escape(username)}\b", " ", text, flags=re.IGNORECASE).strip()


def split_command(text: str, username: str) -> tuple[str, tuple[str, ...]] | None:
    """`/cmd@bot args` → ("cmd", args); None when it is no command or another bot's."""
    found = _COMMAND.match(text.strip())
    if found is None:
        return None
    name, target, rest = found.groups()
    if target and target.lower() != username.lower():
        return None
    return name.lower(), tuple(parse_words(rest or ""))


def carries_button(message: object, data: str) -> bool:
    """The message (Telegram's own copy, not the client's word) has a button with `data`."""
    if not isinstance(message, Message) or message.reply_markup is None:
        return False
    buttons = [b for row in message.reply_markup.inline_keyboard for b in row]
    return any(b.callback_data == data for b in buttons)


def vote_origin(message: object, data: str, user_id: int) -> str | None:
    """The chat a vote may count in (its id), or None when the click cannot be trusted.

    Callback data is chosen by the client; the message it came with is
    Telegram's own copy. A vote counts only when that message carries a button
    with exactly this data, and in a private chat only from the chat's user.
    """
    if not isinstance(message, Message) or not carries_button(message, data):
        return None
    if is_private(message.chat) and message.chat.id != user_id:
        return None
    return str(message.chat.id)


def route(message: Message, *, drafts: bool, private_to: int | None = None) -> dict[str, Any]:
    """Where the reply to `message` goes, as JSON stored with it in the inbox.

    In a group the reply answers the question (`reply_to`) and never streams as a
    draft; `private_to` moves an admin action sent in a group to the admin's
    private chat.
    """
    group = private_to is None and not is_private(message.chat)
    return {
        "chat_id": private_to or message.chat_id,
        "reply_to": message.message_id if group else None,
        "group": group,
        "drafts": drafts and not group,
    }


def answered_message(message: Message, bot_id: int) -> str | None:
    """The bot's message this one replies to (a hand-off card), as "chat:message", if any."""
    replied = message.reply_to_message
    if replied is None or not replies_to_bot(message, bot_id):
        return None
    return f"{message.chat_id}:{replied.message_id}"


def group_conversation(chat_id: int, user_id: int, anchor: int) -> str:
    """A user's thread of replies to the bot in a group, named by its first message."""
    return f"{chat_id}:{user_id}:{anchor}"


def attachment(document: Document, fetch: Callable[[str], Awaitable[bytes]]) -> Attachment:
    """A sent document (named `telegram-<file_unique_id>` when it has no file name).

    `fetch` downloads a file id; the id is kept too (`ref`), for an upload offer.
    """

    async def download() -> bytes:
        return await fetch(document.file_id)

    return Attachment(
        name=document.file_name or f"telegram-{document.file_unique_id}",
        size=document.file_size,
        mime=document.mime_type,
        fetch=download,
        platform_limit=DOWNLOAD_LIMIT,
        ref=document.file_id,
    )


def media_attachment(
    message: Message, fetch: Callable[[str], Awaitable[bytes]]
) -> Attachment | None:
    """A voice note, an audio file or a photo (its largest size) as a question's attachment
    (kind "voice" or "photo"); None when the message carries none of them."""
    if message.voice is not None or message.audio is not None:
        sound = message.voice or message.audio
        assert sound is not None
        name = getattr(sound, "file_name", None) or f"voice-{sound.file_unique_id}.ogg"
        kind, seconds, mime = "voice", _seconds(sound), sound.mime_type or "audio/ogg"
        file_id, size = sound.file_id, sound.file_size
    elif message.photo:
        largest = max(message.photo, key=lambda p: (p.width * p.height, p.file_size or 0))
        name, kind, seconds, mime = f"photo-{largest.file_unique_id}.jpg", "photo", None, None
        file_id, size = largest.file_id, largest.file_size
        mime = "image/jpeg"  # Telegram re-encodes every photo as JPEG
    else:
        return None

    async def download() -> bytes:
        return await fetch(file_id)

    return Attachment(
        name=name,
        size=size,
        mime=mime,
        fetch=download,
        platform_limit=DOWNLOAD_LIMIT,
        ref=file_id,
        kind=kind,
        seconds=seconds,
    )


def _seconds(sound: Voice | Audio) -> int:
    """A voice note's or audio file's length in seconds.

    PTB 22 warns on reading `duration` (an int today, a timedelta in its next major
    version): either is read, without the warning.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        duration: Any = sound.duration
    if isinstance(duration, dt.timedelta):
        return int(duration.total_seconds())
    return int(duration)


def inbound(
    message: Message,
    *,
    text: str,
    conversation_key: str,
    language: str | None,
    command: tuple[str, tuple[str, ...]] | None = None,
    attachments: tuple[Attachment, ...] = (),
    upload_intent: bool = False,
    reply_route: dict[str, Any] | None = None,
    reply_to: str | None = None,
) -> InboundMessage:
    """A question, command or upload as the core's message (`upload_intent`: `/upload`;
    `reply_route`: where the reply goes, see `route`)."""
    user = message.from_user
    name, args = command if command else (None, ())
    return InboundMessage(
        platform=PLATFORM,
        delivery_id=delivery_id(message),
        conversation_key=conversation_key,
        user_id=str(user.id) if user else "",
        text=text,
        language_hint=user.language_code if user else None,
        language=language,
        attachments=attachments,
        command=CORE_COMMANDS.get(name, name) if name else None,
        args=args,
        upload_intent=upload_intent,
        direct=is_private(message.chat),
        route=reply_route or {},
        reply_to=reply_to,
    )


def pressed_question(
    press_id: str,
    shown: Message,
    user: User,
    question: str,
    *,
    conversation_key: str,
    language: str | None,
) -> InboundMessage:
    """A question asked by `user` pressing a button (callback query `press_id`) under the
    bot's message `shown`, as the core's message: Telegram delivering the same press
    again is the same delivery."""
    return InboundMessage(
        platform=PLATFORM,
        delivery_id=f"{shown.chat.id}:press:{press_id}",
        conversation_key=conversation_key,
        user_id=str(user.id),
        text=question,
        language_hint=user.language_code,
        language=language,
        direct=is_private(shown.chat),
    )


def core_button(data: str) -> tuple[str, str] | None:
    """(action, value) of a core button's callback data `cb:<action>:<value>`, or None."""
    prefix, _, rest = data.partition(":")
    action, _, value = rest.partition(":")
    if prefix != CORE_BUTTON or action not in CORE_ACTIONS or not value:
        return None
    return action, value


def stopped_draft(update: Update) -> tuple[int, int] | None:
    """(chat id, draft id) of a `stopped_message_generation` update (Bot API 10.3: the
    user pressed Telegram's stop button on a draft), else None."""
    raw = (update.api_kwargs or {}).get(STOPPED_GENERATION)
    if not isinstance(raw, dict):
        return None
    where = raw.get("chat")
    chat = where.get("id") if isinstance(where, dict) else None  # any shape may come
    draft = raw.get("draft_id")
    if not isinstance(chat, int) or not isinstance(draft, int):
        return None
    return chat, draft


_TOPIC = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what a deep link's start parameter may hold


def deep_link_question(args: list[str]) -> str | None:
    """The question a deep link's start parameter asks, if any.

    `q_<base64url>` carries a whole question in any language (UTF-8); anything
    else is a topic whose words are joined by `_` or `-` ("parking_permit").
    """
    payload = args[0] if len(args) == 1 else ""
    if not _TOPIC.match(payload):
        return None
    if payload.startswith("q_"):
        try:
            raw = payload[2:] + "=" * (-len(payload[2:]) % 4)
            question = base64.urlsafe_b64decode(raw).decode("utf-8")
        except (binascii.Error, ValueError):
            return None
    else:
        question = re.sub(r"[_-]+", " ", payload)
    question = " ".join(question.split())
    return question or None
