"""Slack payloads → the core's InboundMessage (pure functions, no I/O)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from bot.core.admin.commands import is_exact_command, parse_words
from bot.core.messages import Attachment, Audience, InboundMessage
from bot.slack.blocks import FEEDBACK, FEEDBACK_BLOCK, HELPFUL, NOT_HELPFUL

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
_UPLOAD_WORD = re.compile(r"^/?upload\b", re.IGNORECASE)  # the DM text that asks for an upload
# the core's buttons: upload offers, held uploads, "Ask a person", a hand-off case's
CORE_ACTION = re.compile(r"^ragbot_(upload|held|handoff|case)_[a-z0-9_-]+$")
UNKNOWN = Audience()  # no facts: a guest (the core fails closed)
ASK = "ask"  # `/ragbot ask <question>`: answered privately first
# set on the message a suggested question's button asks (bot.slack.buttons): no one wrote
# it in the thread, so its answer says who asked what (route `asked`)
PRESSED = "ragbot_pressed"
_ASK_WORD = re.compile(r"^ask\s+", re.IGNORECASE)
# images OCR cannot read as a photo (a vector drawing, an icon): documents, never questions
_NOT_PHOTOS = frozenset({"image/svg+xml", "image/x-icon", "image/vnd.microsoft.icon"})


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


def unescape(text: str) -> str:
    """Slack's message text with its three entities back as characters (`&amp;` last, so
    `&amp;lt;` stays `&lt;`): what the user typed, for the question and for relays."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def dm_command(text: str) -> tuple[str | None, tuple[str, ...]]:
    """In a DM, text that is exactly a command (`docs`, `delete "Old title"`) is one.

    A question that merely starts with a command word ("help me renew my badge")
    stays a question: see `is_exact_command`.
    """
    words = parse_words(text)
    if is_exact_command(words):
        return words[0].lower(), tuple(words[1:])
    return None, ()


def channel_type(channel: str) -> str:
    """An event's `channel_type` for a channel known only by its id (a button's message):
    "im" for a DM (`D…`), else "channel", whose readers' facts then count too."""
    return "im" if channel.startswith("D") else "channel"


def pressed_value(message: dict[str, Any], action: dict[str, Any]) -> str | None:
    """The value of the pressed button as Slack's copy of `message` holds it (a button
    in an actions block or beside a section), found by the press's block and action
    ids; None when the message has no such button (a press's own value is the client's
    word)."""
    for block in message.get("blocks") or ():
        if action.get("block_id") and block.get("block_id") != action.get("block_id"):
            continue
        for element in [block.get("accessory") or {}, *(block.get("elements") or ())]:
            if isinstance(element, dict) and element.get("action_id") == action.get("action_id"):
                value = element.get("value")
                return str(value) if value else None
    return None


def user_team(payload: dict[str, Any]) -> str | None:
    """The team the acting user belongs to, as the payload says (None: not said).

    Events carry `user_team` (Slack Connect) or `team`; slash commands `team_id`
    (with `user_team_id` in shared channels); actions `user.team_id`.
    """
    user = payload.get("user")
    if isinstance(user, dict) and user.get("team_id"):
        return str(user["team_id"])
    for key in ("user_team", "user_team_id", "team", "team_id"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def inbound_message(
    event: dict[str, Any],
    bot_user_id: str | None,
    fetch: Fetcher,
    audience: Audience = UNKNOWN,
    team: str | None = None,
) -> InboundMessage:
    """A mention, DM or thread reply (with any shared files) as the core's message.

    The delivery id is the channel and message ts: a mention also arrives as a
    `message` event with another event id, and must be answered once. The
    route is where the answer goes (the thread; the asker and team a stream is
    addressed to), stored with the message so any worker can answer it.
    """
    channel, ts = event["channel"], event["ts"]
    thread_ts = event.get("thread_ts") or ts
    text = unescape(strip_mentions(event.get("text") or "", bot_user_id))
    is_dm = event.get("channel_type") == "im"
    shared = event.get("files") or ()
    # files become uploads only in a DM whose text says `upload`: never in a channel
    intent = bool(shared) and is_dm and _UPLOAD_WORD.match(text) is not None
    files = tuple(
        Attachment(
            name=f.get("name") or f.get("title") or f.get("id", "file"),
            size=f.get("size"),
            mime=f.get("mimetype"),
            fetch=_bind(fetch, file_url(f)),
            ref=file_url(f) or None,
            # sent to be added, an image is a document like any other; else it asks
            kind="file" if intent else question_kind(f),
            seconds=clip_seconds(f),
        )
        for f in shared
    )
    command, args = dm_command(text) if is_dm and not files else (None, ())
    return InboundMessage(
        platform=PLATFORM,
        delivery_id=f"{channel}:{ts}",
        conversation_key=conversation_key(channel, thread_ts),
        user_id=event.get("user", ""),
        text=text,
        attachments=files,
        command=command,
        args=args,
        audience=audience,
        upload_intent=intent,
        direct=is_dm,
        # under a thread's parent (the bot's answer, or a hand-off case's card)
        reply_to=conversation_key(channel, thread_ts) if thread_ts != ts else None,
        route={
            "channel": channel,
            "thread_ts": thread_ts,
            "user": event.get("user", ""),
            "team": event.get("team") or team,
        }
        | ({"asked": text} if event.get(PRESSED) else {}),
    )


def question_kind(shared: dict[str, Any]) -> str:
    """What a shared file is to its sender: "photo" (an image, read by OCR), "voice" (an
    audio clip or recording, transcribed) or "file" (a document: offered or uploaded).

    Slack records an audio clip as `audio/*`, or as a `video/*` file of subtype
    `slack_audio` in some clients; a video clip with pictures is a document.
    """
    mime = str(shared.get("mimetype") or "").lower()
    if mime.startswith("image/") and mime not in _NOT_PHOTOS:
        return "photo"
    if mime.startswith("audio/") or shared.get("subtype") == "slack_audio":
        return "voice"
    return "file"


def clip_seconds(shared: dict[str, Any]) -> int | None:
    """An audio clip's length in whole seconds (rounded up), as Slack reports it, or None."""
    duration = shared.get("duration_ms")
    if isinstance(duration, int | float) and not isinstance(duration, bool) and duration >= 0:
        return -(-int(duration) // 1000)
    return None


def file_url(shared: dict[str, Any]) -> str:
    """Where a shared file is downloaded (with the bot token)."""
    return str(shared.get("url_private_download") or shared.get("url_private") or "")


def core_button(body: dict[str, Any]) -> tuple[str, str] | None:
    """(action, value) of a pressed core button (`ragbot_upload_*`, `ragbot_held_*`)."""
    action = (body.get("actions") or [{}])[0]
    found = CORE_ACTION.match(str(action.get("action_id") or ""))
    value = str(action.get("value") or "")
    return (found.group(1), value) if found and value else None


def _bind(fetch: Fetcher, url: str) -> Callable[[], Awaitable[bytes]]:
    async def download() -> bytes:
        return await fetch(url)

    return download


def slash_command(payload: dict[str, Any], audience: Audience = UNKNOWN) -> InboundMessage:
    """`/ragbot docs` → the `docs` command (`/ragbot` alone is `help`).

    Its reply goes to the command's response_url (ephemeral), kept in the route.
    """
    words = parse_words(payload.get("text") or "")
    name = words[0].lower() if words else "help"
    if name == ASK and len(words) > 1:
        return private_question(payload, audience)
    return InboundMessage(
        platform=PLATFORM,
        delivery_id=f"command:{payload.get('trigger_id') or payload.get('command_ts', '')}",
        conversation_key=f"{payload.get('channel_id', '')}:commands",
        user_id=payload.get("user_id", ""),
        text=payload.get("text") or "",
        command=name,
        args=tuple(words[1:]),
        audience=audience,
        route={
            "channel": payload.get("channel_id", ""),
            "user": payload.get("user_id", ""),
            "response_url": payload.get("response_url") or "",
        },
    )


def is_private_question(payload: dict[str, Any]) -> bool:
    """`/ragbot ask <question>`: a question answered privately first."""
    words = parse_words(payload.get("text") or "")
    return len(words) > 1 and words[0].lower() == ASK


def private_question(payload: dict[str, Any], audience: Audience = UNKNOWN) -> InboundMessage:
    """`/ragbot ask <question>` as a question whose answer only the asker sees (by the
    command's response_url), with buttons to share it in the channel or keep it private.

    Its conversation is the asker's own in that channel (`private_key`): follow-up
    asks see the earlier ones, and only the asker can share its answers.
    """
    channel, user = payload.get("channel_id", ""), payload.get("user_id", "")
    question = _ASK_WORD.sub("", (payload.get("text") or "").strip(), count=1)
    return InboundMessage(
        platform=PLATFORM,
        delivery_id=f"command:{payload.get('trigger_id') or payload.get('command_ts', '')}",
        conversation_key=private_key(channel, user),
        user_id=user,
        text=unescape(question).strip(),
        audience=audience,
        route={
            "channel": channel,
            "user": user,
            "response_url": payload.get("response_url") or "",
            "private": True,
        },
    )


def private_key(channel: str, user: str) -> str:
    """The conversation of one user's `/ragbot ask` questions in one channel."""
    return f"{channel}:ask-{user}"


def vote_origin(body: dict[str, Any], block_id: str = FEEDBACK_BLOCK) -> str | None:
    """The thread (`channel:thread_ts`) a feedback click may count in, or None
    (`block_id`: the block the button must be in; "Ask a person" has its own).

    The clicked message must be one carrying that answer's feedback buttons
    (the action's value among its blocks), and the thread is the message's own
    (its channel from the action's container): the core then checks that the
    answer was posted in exactly that thread.
    """
    actions = body.get("actions") or [{}]
    value = actions[0].get("value")
    message = body.get("message") or {}
    container = body.get("container") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    carried = [
        value
        for block in message.get("blocks") or ()
        if block.get("block_id") == block_id
        for element in block.get("elements") or ()
        for value in _values(element)
    ]
    thread = message.get("thread_ts") or message.get("ts")
    if not channel or not thread or value is None or value not in carried:
        return None
    return conversation_key(channel, thread)


def _values(element: dict[str, Any]) -> list[Any]:
    """The values a block element carries (Slack's feedback buttons carry two)."""
    if element.get("type") == "feedback_buttons":
        return [(element.get(b) or {}).get("value") for b in ("positive_button", "negative_button")]
    return [element.get("value")]


def vote_of(action: dict[str, Any]) -> tuple[int, bool] | None:
    """(answer id, helpful) of a pressed feedback button (plain or Slack's own), or None."""
    action_id, value = str(action.get("action_id") or ""), str(action.get("value") or "")
    if action_id in (HELPFUL, NOT_HELPFUL) and value.isdigit():
        return int(value), action_id == HELPFUL
    if action_id == FEEDBACK and value[:1] in ("+", "-") and value[1:].isdigit():
        return int(value[1:]), value[0] == "+"
    return None
