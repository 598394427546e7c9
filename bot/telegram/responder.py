"""One answer in one Telegram chat: typing, a streamed draft or edited message, then the answer.

In private chats the answer streams as a draft (`sendMessageDraft`) and is then
sent as a real message; where drafts are refused (groups, an older Bot API) the
first text is sent as a message and edited as more arrives. Drafts and edits
share one pace per chat (`ChatPacer`): never more than one per
TELEGRAM_UPDATE_INTERVAL in any chat, however many answers it has in flight.
A 429 is honoured: previews are skipped until `retry_after` has passed, and
the final messages wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import warnings
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

from telegram import Bot, InlineKeyboardMarkup, Message, ReplyParameters
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, RetryAfter, TelegramError
from telegram.warnings import PTBDeprecationWarning

from bot.core.messages import ErrorReply, FinalAnswer, Outbound, Reply, Reset, Token
from bot.telegram.render import answer_keyboard, answer_messages, html_messages, preview

logger = logging.getLogger(__name__)
T = TypeVar("T")
TYPING_EVERY_S = 4.5  # Telegram shows "typing…" for 5 s
MAX_RETRIES = 3


def retry_seconds(exc: RetryAfter) -> float:
    """`retry_after` in seconds (PTB gives an int or a timedelta)."""
    with warnings.catch_warnings():  # PTB warns that the int will become a timedelta
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class ChatPacer:
    """At most one preview update (draft or edit) per chat per interval, shared by all answers."""

    def __init__(self, interval_s: float) -> None:
        self.interval = interval_s
        self._next: dict[int, float] = {}  # chat → when the next update may go

    def try_take(self, chat_id: int) -> bool:
        """Reserve the chat's next slot if it is due now."""
        now = time.monotonic()
        if now < self._next.get(chat_id, 0.0):
            return False
        self._next[chat_id] = now + self.interval
        if len(self._next) > 10_000:  # forget chats that are long quiet
            self._next = {c: t for c, t in self._next.items() if t > now}
        return True

    async def take(self, chat_id: int) -> None:
        """Wait for the chat's next slot and reserve it."""
        while not self.try_take(chat_id):
            await asyncio.sleep(max(0.01, self._next[chat_id] - time.monotonic()))

    def done(self, chat_id: int) -> None:
        """A call to the chat just returned: the next one waits a full interval from now.

        Reserving at the start alone is not enough: Telegram sees a call when it
        arrives, and arrival times jitter; counting from the return keeps the
        gap Telegram sees at least the interval.
        """
        self.hold(chat_id, self.interval)

    def hold(self, chat_id: int, seconds: float) -> None:
        """No update to this chat for `seconds` (Telegram said 429)."""
        self._next[chat_id] = max(self._next.get(chat_id, 0.0), time.monotonic() + seconds)


class TelegramResponder:
    """Renders one delivery's outbound events into a chat."""

    def __init__(
        self,
        bot: Bot,
        chat_id: int,
        pacer: ChatPacer,
        *,
        reply_to: int | None = None,
        drafts: bool = False,
    ) -> None:
        self._bot = bot
        self._chat = chat_id
        self._pacer = pacer
        self._reply_to = reply_to
        self._drafts = drafts
        self._draft_id = random.randint(1, 2**31 - 1)
        self._text = ""  # the answer so far
        self._shown: Message | None = None  # the message being edited (edit mode)
        self._typing: asyncio.Task[None] | None = None
        self.sent: list[Message] = []  # the messages of the final reply

    async def start(self) -> None:
        """Show "typing…" now and keep it up until the reply is sent."""
        if self._typing is None:
            self._typing = asyncio.create_task(self._keep_typing())

    async def _keep_typing(self) -> None:
        with contextlib.suppress(TelegramError):
            while True:
                await self._bot.send_chat_action(self._chat, ChatAction.TYPING)
                await asyncio.sleep(TYPING_EVERY_S)

    async def close(self) -> None:
        """Stop the typing indicator."""
        if self._typing is not None:
            self._typing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._typing

    async def render(self, event: Outbound, keyboard: InlineKeyboardMarkup | None = None) -> None:
        """Show one event (`keyboard`: buttons for a Reply, like the forms list)."""
        if isinstance(event, Token):
            self._text += event.text
            await self._preview()
        elif isinstance(event, Reset):
            self._text = ""
        elif isinstance(event, FinalAnswer):
            await self._final(answer_messages(event), answer_keyboard(event))
        elif isinstance(event, Reply | ErrorReply):
            await self._final(html_messages(event.text), keyboard)

    async def _preview(self) -> None:
        if not self._text.strip():
            return
        if self._drafts:
            if self._pacer.try_take(self._chat):
                await self._draft()
        elif self._shown is None:  # the first text shows at once (a new message, not an edit)
            self._pacer.hold(self._chat, self._pacer.interval)
            self._shown = await self._send(preview(self._text), None, essential=False)
            self._pacer.done(self._chat)
        elif self._pacer.try_take(self._chat):
            await self._edit(self._shown, preview(self._text), None, essential=False)

    async def _draft(self) -> None:
        try:
            await self._bot.send_message_draft(
                self._chat, self._draft_id, preview(self._text), parse_mode=ParseMode.HTML
            )
            self._pacer.done(self._chat)
        except RetryAfter as exc:
            self._pacer.hold(self._chat, retry_seconds(exc))
        except TelegramError as exc:  # not available here: edit a message instead
            logger.info("drafts unavailable in chat %s (%s): editing instead", self._chat, exc)
            self._drafts = False
            await self._preview()

    async def _final(self, pieces: list[str], keyboard: InlineKeyboardMarkup | None) -> None:
        await self.close()
        for i, piece in enumerate(pieces):
            markup = keyboard if i == len(pieces) - 1 else None
            if i == 0 and self._shown is not None:
                await self._pacer.take(self._chat)  # the final edit keeps the pace too
                edited = await self._edit(self._shown, piece, markup, essential=True)
                if edited is not None:
                    self.sent.append(edited)
                    continue
            sent = await self._send(piece, markup, essential=True)
            if sent is not None:
                self.sent.append(sent)

    async def _send(
        self, html: str, markup: InlineKeyboardMarkup | None, *, essential: bool
    ) -> Message | None:
        reply = (
            ReplyParameters(self._reply_to, allow_sending_without_reply=True)
            if self._reply_to
            else None
        )
        return await self._call(
            lambda: self._bot.send_message(
                self._chat,
                html,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                reply_parameters=reply,
                link_preview_options=None,
            ),
            essential,
        )

    async def _edit(
        self, message: Message, html: str, markup: InlineKeyboardMarkup | None, *, essential: bool
    ) -> Message | None:
        async def edit() -> Message | None:
            try:
                result = await self._bot.edit_message_text(
                    html,
                    chat_id=self._chat,
                    message_id=message.message_id,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                )
            except BadRequest as exc:
                if "not modified" not in str(exc).lower():
                    raise
                return message
            return result if isinstance(result, Message) else message

        try:
            return await self._call(edit, essential)
        finally:
            self._pacer.done(self._chat)  # edits are paced from when Telegram had them

    async def _call(self, send: Callable[[], Awaitable[T]], essential: bool) -> T | None:
        """Send; on 429 hold the chat, and retry only what the user must get."""
        for attempt in range(MAX_RETRIES + 1):
            try:
                return await send()
            except RetryAfter as exc:
                wait = retry_seconds(exc)
                self._pacer.hold(self._chat, wait)
                if not essential or attempt == MAX_RETRIES:
                    logger.info("chat %s: 429, skipped (retry after %.0f s)", self._chat, wait)
                    return None
                await asyncio.sleep(wait)
            except TelegramError as exc:
                if essential:
                    raise
                logger.info("chat %s: preview not shown (%s)", self._chat, exc)
                return None
        return None
