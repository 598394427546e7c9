"""Sending to Telegram: the outbox's channel (one stored send made with the Bot API, its
failures sorted), the payloads it stores, upload results and the 👀 on a question.

Final answers (each piece), replies, form files, a core button's result and
upload results are enqueued in the core's outbox; the outbox calls `send` for
one row at a time, per chat in order, at most one per second in a private chat
and one per three seconds in a group (Telegram's 20 messages a minute per
group). The previews of answers still streaming in the same chat share this
pace (one `ChatPacer`): a send waits for the chat's next slot, and a chat held
by a 429 is not sent to before `retry_after`. A 429 is never slept on here: it
goes back to the outbox with `retry_after`, so only that chat waits and no turn
holds a slot meanwhile; network errors and 5xx are retried with a backoff;
what Telegram refuses for good (the bot was blocked, the chat is gone, a bad
request) is Undeliverable, and `ragbot traces` shows why.

Payloads (JSON, written by the responder, the listeners and the case renderer):
`{"op": "send", "chat_id", "text", "reply_to"?, "markup"?, "remember"?}`,
`{"op": "edit", "chat_id", "message_id", "text", "reply_to"?, "markup"?, "remember"?}`
(the streamed preview, or a button's message, becomes the reply; sent as a new
message when it cannot be edited), `{"op": "file", "chat_id", "form"}` (a
form's stored file) and `{"op": "react", "chat_id", "message_id", "emoji"}` (the
bot's reaction on a message; "" clears it). Text is HTML; `markup` is an inline
keyboard (or a reply keyboard of suggested questions) as Telegram's JSON.
`remember` is the conversation a group's bot message belongs to: stored
once the message exists, so a reply to it continues that conversation.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import (
    Bot,
    InlineKeyboardMarkup,
    InputFile,
    LinkPreviewOptions,
    Message,
    ReplyKeyboardMarkup,
    ReplyParameters,
)
from telegram.constants import ParseMode, ReactionEmoji
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from bot.core.messages import UploadOutcome
from bot.core.platform import Channel, Pending, RetryLater, Undeliverable
from bot.core.serving import ServingCore
from bot.telegram import translate
from bot.telegram.features import REACTIONS, TelegramFeatures
from bot.telegram.pace import ChatPacer, retry_seconds
from bot.telegram.render import core_keyboard, escape
from bot.telegram.translate import PLATFORM

logger = logging.getLogger(__name__)
# an answer's source links would each unfold into a preview card under it
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
PRIVATE_GAP_S = 1.0  # about one message per second in a chat
GROUP_GAP_S = 3.0  # and 20 messages per minute in a group
# an edit that fails so cannot succeed later: the reply is sent as a new message
NOT_EDITABLE = ("message to edit not found", "message can't be edited", "message_id_invalid")


def send_payload(
    chat_id: int,
    html: str,
    markup: InlineKeyboardMarkup | ReplyKeyboardMarkup | None = None,
    *,
    reply_to: int | None = None,
    remember: str | None = None,
) -> dict[str, Any]:
    """A new message in `chat_id` (`remember`: the group conversation it belongs to)."""
    payload: dict[str, Any] = {"op": "send", "chat_id": chat_id, "text": html}
    if markup is not None:
        payload["markup"] = markup.to_dict()
    if reply_to is not None:
        payload["reply_to"] = reply_to
    if remember is not None:
        payload["remember"] = remember
    return payload


def edit_payload(
    chat_id: int,
    message_id: int,
    html: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    reply_to: int | None = None,
    remember: str | None = None,
) -> dict[str, Any]:
    """Message `message_id` edited to `html` (sent anew, as a reply to `reply_to`, if gone)."""
    payload = send_payload(chat_id, html, markup, reply_to=reply_to, remember=remember)
    return {**payload, "op": "edit", "message_id": message_id}


def file_payload(chat_id: int, form: str) -> dict[str, Any]:
    """The stored file of form `form`, sent to `chat_id`."""
    return {"op": "file", "chat_id": chat_id, "form": form}


def gap(chat: str) -> float:
    """The least time between two sends to one chat (groups have negative ids)."""
    return GROUP_GAP_S if chat.startswith("-") else PRIVATE_GAP_S


class TelegramDelivery:
    """Makes the outbox's Telegram sends with one bot, on the previews' pace."""

    def __init__(
        self, core: ServingCore, bot: Bot, pacer: ChatPacer, features: TelegramFeatures
    ) -> None:
        self._core = core
        self._bot = bot
        self._pacer = pacer
        self._features = features
        self._reacting: set[asyncio.Task[None]] = set()  # 👀 being set

    async def close(self) -> None:
        """Let the reactions being set finish (briefly): the bot closes after."""
        if self._reacting:
            await asyncio.wait(list(self._reacting), timeout=2.0)

    async def enqueue(self, chat_id: int, key: str, payload: dict[str, Any]) -> None:
        """One send for the outbox (once per `key`), paced with the chat's other sends."""
        await self._core.enqueue(PLATFORM, str(chat_id), key, payload)

    async def reply(
        self,
        message: Message,
        part: str,
        html: str,
        markup: InlineKeyboardMarkup | ReplyKeyboardMarkup | None = None,
    ) -> None:
        """A short reply to `message`, through the outbox: paced with the chat's other
        sends, retried on 429 and network errors, and sent once (keyed by the update)."""
        reply_to = None if translate.is_private(message.chat) else message.message_id
        payload = send_payload(message.chat_id, html, markup, reply_to=reply_to)
        await self.enqueue(message.chat_id, f"tg:{translate.delivery_id(message)}:{part}", payload)

    async def notify(self, outcome: UploadOutcome) -> None:
        """Tell the admin, in their private chat, what the ingestion job did (outbox).

        Never the chat the file came from: a held notice names personal data
        (masked) and has buttons, and a group must see neither. A Telegram user's
        private chat has their user id.
        """
        chat_id = translate.chat_of(outcome.user_id)
        if chat_id is None or chat_id <= 0:  # not a user: groups have negative ids
            logger.warning("upload %s: no private chat for its uploader", outcome.upload_id)
            return
        payload = send_payload(
            chat_id,
            escape(outcome.text),
            core_keyboard(outcome.buttons),  # a held upload: publish / cancel
        )
        await self.enqueue(chat_id, f"{outcome.about}:{outcome.status}", payload)

    def react_seen(self, message: Message) -> None:
        """👀 on a group question (cleared when the answer arrives), off the listener."""
        task = asyncio.create_task(self._set_reaction(message))
        self._reacting.add(task)
        task.add_done_callback(self._reacting.discard)

    async def _set_reaction(self, message: Message) -> None:
        try:
            await message.set_reaction(ReactionEmoji.EYES)
        except TelegramError as exc:
            self._features.failed(REACTIONS, exc)

    def channel(self) -> Channel:
        """What the core's outbox registers for Telegram."""
        return Channel(send=self.send, gap=gap)

    async def send(self, row: Pending) -> dict[str, Any] | None:
        """Make one send; what it returns is kept with the row (the message id)."""
        payload = await self._placed(row.payload)
        chat_id = int(payload["chat_id"])
        held = self._pacer.held_for(chat_id)
        if held > 0:  # a 429 (from a preview or a send) holds the chat: no sleeping here
            raise RetryLater("chat held after a 429", after_s=held)
        await self._pacer.take(chat_id)  # at most a pace interval: previews share the chat
        try:
            message_id = await self._send(payload, chat_id)
        except RetryAfter as exc:
            wait = retry_seconds(exc)
            self._pacer.hold(chat_id, wait)
            raise RetryLater(f"429: retry after {wait:.0f} s", after_s=wait) from exc
        except (Forbidden, InvalidToken, ChatMigrated) as exc:
            raise Undeliverable(f"{type(exc).__name__}: {exc}") from exc
        except BadRequest as exc:  # before NetworkError: PTB's BadRequest is one
            raise Undeliverable(f"BadRequest: {exc}") from exc
        except NetworkError as exc:  # timeouts, 5xx, a dropped connection
            raise RetryLater(f"{type(exc).__name__}: {exc}") from exc
        except TelegramError as exc:
            raise RetryLater(f"{type(exc).__name__}: {exc}") from exc
        finally:
            self._pacer.done(chat_id)
        await self._remember(payload, chat_id, message_id)
        return {"message_id": message_id}

    async def _placed(self, payload: dict[str, Any]) -> dict[str, Any]:
        """A hand-off message as a reply to its case's card (`case_thread`) or an edit of
        the card (`case_card`): the card's message id, once it is posted (before: later)."""
        case = payload.get("case_thread") or payload.get("case_card")
        if not case:
            return payload
        ref = await self._core.card_ref(int(case), PLATFORM)
        if ref == "":  # the card could never be posted: nothing can go under it
            raise Undeliverable("the case's card was never posted")
        if ref is None:
            raise RetryLater("the case's card is not posted yet")
        message_id = int(ref.rpartition(":")[2])
        if payload.get("case_thread"):
            return {**payload, "reply_to": message_id}
        return {**payload, "message_id": message_id}

    async def _send(self, payload: dict[str, Any], chat_id: int) -> int:
        """The id of the message sent (or edited)."""
        op = payload.get("op")
        if op == "file":
            return await self._send_file(chat_id, str(payload["form"]))
        if op == "react":
            return await self._react(payload, chat_id)
        markup = _markup(payload.get("markup"), self._bot)
        if op == "edit":
            edited = await self._edit(payload, chat_id, markup)
            if edited is not None:
                return edited
        elif op != "send":
            raise Undeliverable(f"unknown Telegram outbox op {op!r}")
        reply_to = payload.get("reply_to")
        sent = await self._bot.send_message(
            chat_id,
            payload["text"],
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            link_preview_options=NO_PREVIEW,
            reply_parameters=(
                ReplyParameters(int(reply_to), allow_sending_without_reply=True)
                if reply_to
                else None
            ),
        )
        return sent.message_id

    async def _react(self, payload: dict[str, Any], chat_id: int) -> int:
        """Set (or, with no emoji, clear) the bot's reaction on a message; best effort."""
        message_id = int(payload["message_id"])
        emoji = str(payload.get("emoji") or "")
        if not self._features.allows(REACTIONS):
            return message_id
        try:
            await self._bot.set_message_reaction(chat_id, message_id, emoji or None)
        except TelegramError as exc:  # gone, not allowed in this chat, or no such method
            self._features.failed(REACTIONS, exc)
        return message_id

    async def _edit(self, payload: dict[str, Any], chat_id: int, markup: Any) -> int | None:
        """The edited message's id; None when it cannot be edited (then it is sent anew)."""
        message_id = int(payload["message_id"])
        try:
            result = await self._bot.edit_message_text(
                payload["text"],
                chat_id=chat_id,
                message_id=message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                link_preview_options=NO_PREVIEW,
            )
        except BadRequest as exc:
            reason = str(exc).lower()
            if "not modified" in reason:  # already showing this (an earlier attempt's edit)
                return message_id
            if any(words in reason for words in NOT_EDITABLE):
                logger.info("chat %s: message %s not editable (%s)", chat_id, message_id, exc)
                return None
            raise
        return result.message_id if isinstance(result, Message) else message_id

    async def _send_file(self, chat_id: int, form: str) -> int:
        file = await self._core.form_file(PLATFORM, form)
        if file is None:  # deleted since it was offered
            raise Undeliverable(f"form {form!r} has no file any more")
        sent = await self._bot.send_document(
            chat_id, InputFile(file.data, filename=file.name), caption=form[:1024]
        )
        return sent.message_id

    async def _remember(self, payload: dict[str, Any], chat_id: int, message_id: int) -> None:
        """A group's bot message now exists: a reply to it continues its conversation."""
        conversation = payload.get("remember")
        if not conversation:
            return
        try:
            key = translate.message_key(chat_id, message_id)
            await self._core.remember_many(PLATFORM, [key], str(conversation))
        except Exception:  # sent already: never send twice for want of a note
            logger.exception("chat %s: thread of message %s not remembered", chat_id, message_id)


def _markup(raw: Any, bot: Bot) -> InlineKeyboardMarkup | ReplyKeyboardMarkup | None:
    """A stored keyboard: inline buttons, or a reply keyboard (suggested questions)."""
    if not raw:
        return None
    if "keyboard" in raw:
        return ReplyKeyboardMarkup.de_json(raw, bot)
    return InlineKeyboardMarkup.de_json(raw, bot)


def react_payload(chat_id: int, message_id: int, emoji: str = "") -> dict[str, Any]:
    """Set the bot's reaction on a message (no emoji: clear it)."""
    return {"op": "react", "chat_id": chat_id, "message_id": message_id, "emoji": emoji}
