"""Shows one turn's events in Telegram: previews while the turn runs, the reply via the outbox.

The core runs a delivery's turn (on whichever worker holds it) and hands its
events here. Where to answer comes from the message's `route`, written by the
listener when it accepted the update: `chat_id`, `reply_to` (groups: the
question, so the answer is a reply to it), `group`, `drafts` (private chats
may stream as drafts). Typing and the preview are shown here, in the turn; the
final messages (answer pieces, replies, form files) are enqueued in the outbox
with keys made of the delivery id and the piece, so a resumed turn never sends
a second copy, and the turn's slot is free before anything is posted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from telegram import Bot, InlineKeyboardMarkup

from bot.core.messages import ErrorReply, FinalAnswer, Outbound, Progress, Reply, Reset, Token
from bot.core.platform import Delivery
from bot.core.serving import ServingCore
from bot.telegram.asked_line import asked_line
from bot.telegram.delivery import edit_payload, file_payload, react_payload, send_payload
from bot.telegram.pace import ChatPacer
from bot.telegram.preview import TelegramPreview
from bot.telegram.render import (
    answer_keyboard,
    answer_messages,
    form_key,
    headed,
    html_messages,
    reply_keyboard,
    stop_keyboard,
)
from bot.telegram.translate import PLATFORM


def posted_preview(posted: list[dict[str, Any]]) -> int | None:
    """The preview message an earlier attempt left (the last one it recorded), if any."""
    ids = [int(p["message_id"]) for p in posted if p.get("message_id") is not None]
    return ids[-1] if ids else None


class TelegramResponder:
    """The core's renderer for Telegram deliveries."""

    def __init__(self, core: ServingCore, bot: Bot, pacer: ChatPacer) -> None:
        self._core = core
        self._bot = bot
        self._pacer = pacer

    async def stop_draft(self, chat_id: int, draft_id: int) -> None:
        """Telegram's stop button on a draft: stop the turn writing it, on whichever worker
        runs it (drafts are private chats: the chat is the asker's)."""
        await self._core.stop_turn(PLATFORM, draft_name(chat_id, draft_id), str(chat_id))

    async def render(self, delivery: Delivery, events: AsyncIterator[Outbound]) -> None:
        """Show every event of one delivery; the final ones are in the outbox on return."""
        message = delivery.message
        route = message.route
        chat_id = int(route["chat_id"])
        group = bool(route.get("group"))
        reply_to = int(route["reply_to"]) if route.get("reply_to") else None
        responder = TelegramPreview(
            self._bot,
            chat_id,
            self._pacer,
            reply_to=reply_to,
            drafts=bool(route.get("drafts")),
            shown=posted_preview(delivery.posted),
            record=delivery.record_posted,
        )
        place = _Place(
            self._core,
            message.delivery_id,
            chat_id,
            reply_to,
            # a reply to any of the bot's messages in a group continues this conversation
            message.conversation_key if group else None,
        )
        try:
            async for out in events:
                if isinstance(out, Progress | Token):  # the turn runs (it has its slot)
                    if responder.stop_markup is None and isinstance(out, Progress):
                        # the turn runs: a Stop may name it, or its draft (Telegram's button)
                        responder.stop_markup = stop_keyboard(message.delivery_id, out.language)
                        name = draft_name(chat_id, responder.draft_id)
                        self._core.alias_turn(PLATFORM, name, message.delivery_id)
                    await responder.start()
                if isinstance(out, Token | Reset):
                    await responder.show(out)
                elif isinstance(out, FinalAnswer):
                    await responder.close()
                    trace_id = out.result.trace_id
                    markup = answer_keyboard(out)
                    pieces = answer_messages(out, asked_line(route, out.language))
                    await place.reply(pieces, markup, responder, trace_id)
                    for form in out.forms:
                        if form.get("send_file"):
                            await place.file(str(form["name"]), trace_id)
                    place.index += 1
                elif isinstance(out, Reply | ErrorReply):
                    await responder.close()
                    error_trace = out.trace_id if isinstance(out, ErrorReply) else None
                    # a reply to a question a button asked says what was asked too
                    pieces = headed(html_messages(out.text), asked_line(route, out.language))
                    await place.reply(pieces, reply_keyboard(out), responder, error_trace)
                    place.index += 1
            if route.get("react") and reply_to is not None:  # answered: the 👀 on it goes
                await place.unreact(reply_to)
        finally:
            await responder.close()


class _Place:
    """Where one delivery's final messages go, and the outbox keys they are stored under."""

    def __init__(
        self,
        core: ServingCore,
        delivery_id: str,
        chat_id: int,
        reply_to: int | None,
        remember: str | None,
    ) -> None:
        self._core = core
        self._delivery = delivery_id
        self._chat = chat_id
        self._reply_to = reply_to
        self._remember = remember
        self.index = 0  # the n-th final event of the delivery (a resumed turn counts the same)

    def _key(self, part: str) -> str:
        return f"tg:{self._delivery}:{self.index}:{part}"

    async def reply(
        self,
        pieces: list[str],
        markup: InlineKeyboardMarkup | None,
        responder: TelegramPreview,
        trace_id: str | None,
    ) -> None:
        """The reply's pieces, buttons under the last; the first replaces the preview."""
        for i, piece in enumerate(pieces):
            buttons = markup if i == len(pieces) - 1 else None
            if i == 0 and responder.shown is not None:
                payload = edit_payload(
                    self._chat,
                    responder.shown,
                    piece,
                    buttons,
                    reply_to=self._reply_to,
                    remember=self._remember,
                )
                responder.shown = None  # the next reply of the delivery is a new message
            else:
                payload = send_payload(
                    self._chat, piece, buttons, reply_to=self._reply_to, remember=self._remember
                )
            await self._core.enqueue(
                PLATFORM, str(self._chat), self._key(str(i)), payload, trace_id
            )

    async def unreact(self, message_id: int) -> None:
        """Clear the bot's reaction on the question, after the answer."""
        payload = react_payload(self._chat, message_id)
        key = f"tg:{self._delivery}:unreact"
        await self._core.enqueue(PLATFORM, str(self._chat), key, payload)

    async def file(self, form: str, trace_id: str | None) -> None:
        """A form's stored file, after the answer that offers it."""
        key = self._key(f"file:{form_key(form)}")
        await self._core.enqueue(
            PLATFORM, str(self._chat), key, file_payload(self._chat, form), trace_id
        )


def draft_name(chat_id: int, draft_id: int) -> str:
    """How a Stop on a draft names its turn."""
    return f"draft:{chat_id}:{draft_id}"
