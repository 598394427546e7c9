"""One answer in one Telegram chat while it is written: typing, then a streamed preview.

In private chats the answer streams as a draft (`sendMessageDraft`) and the
answer is then sent as a real message; where drafts are refused (groups, an
older Bot API) the first text is sent as a message and edited as more arrives
(its id is recorded with the delivery at once, so a worker resuming the turn
after a crash edits that message rather than leaving it half-written). The
final messages are not sent here: they go through the outbox (see
`bot.telegram.delivery`). Previews and the outbox's sends share one pace per chat
(`bot.telegram.pace.ChatPacer`): never more than one per TELEGRAM_UPDATE_INTERVAL
in any chat, however many answers it has in flight, but for an answer's first
text: a preview message (edit mode) is a new message and goes at once; a first
draft goes at once when the chat has shown no preview within the interval (the
earlier answer's final message, sent just before the next question came, does
not hold it back). A 429 on a preview is never waited for inside the turn: the
chat is held until `retry_after` and previews are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, ReplyParameters
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, RetryAfter, TelegramError

from bot.core.messages import Reset, Token
from bot.telegram.pace import ChatPacer, retry_seconds
from bot.telegram.render import preview

logger = logging.getLogger(__name__)
TYPING_EVERY_S = 4.5  # Telegram shows "typing…" for 5 s


class TelegramPreview:
    """Shows one delivery's answer while it is written: typing, then a draft or a preview.

    `shown` is the id of the preview message in edit mode (an earlier attempt's,
    when the delivery is resumed): the final reply replaces it. `record` stores
    a new preview message's id with the delivery as soon as it exists.
    """

    def __init__(
        self,
        bot: Bot,
        chat_id: int,
        pacer: ChatPacer,
        *,
        reply_to: int | None = None,
        drafts: bool = False,
        shown: int | None = None,
        record: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
    ) -> None:
        self._bot = bot
        self._chat = chat_id
        self._pacer = pacer
        self._reply_to = reply_to
        self._drafts = drafts and shown is None  # a message exists already: keep editing it
        self._record = record
        self.draft_id = random.randint(1, 2**31 - 1)
        self._text = ""  # the answer so far
        self.shown = shown
        # Stop under the preview while the answer is written (a draft: Telegram's own
        # stop button, Bot API 10.3, which python-telegram-bot does not name yet)
        self.stop_markup: InlineKeyboardMarkup | None = None
        self._typing: asyncio.Task[None] | None = None
        self._later: asyncio.Task[None] | None = None  # the preview owed once the pace allows
        self._drafted = False  # a draft of this answer was sent (or tried)
        # the first preview message is on its way (edit mode): no second one meanwhile,
        # and the task sending it, which `close` lets finish so its id is recorded
        self._first_sender: asyncio.Task[Any] | None = None

    async def start(self) -> None:
        """Show "typing…" now and keep it up until the reply is handed to the outbox."""
        if self._typing is None:
            self._typing = asyncio.create_task(self._keep_typing())

    async def _keep_typing(self) -> None:
        with contextlib.suppress(TelegramError):
            while True:
                await self._bot.send_chat_action(self._chat, ChatAction.TYPING)
                await asyncio.sleep(TYPING_EVERY_S)

    async def close(self) -> None:
        """Stop the typing indicator and any preview still owed (the reply replaces it)."""
        if self._later is not None:
            if self._later is not self._first_sender:  # else: it arrives and is recorded
                self._later.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._later
            self._later = None
        if self._typing is not None:
            self._typing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._typing

    async def show(self, event: Token | Reset) -> None:
        """Grow (or, on Reset, drop) the preview."""
        if isinstance(event, Reset):
            self._text = ""
            return
        self._text += event.text
        if not self._text.strip():
            return
        if self._pacer.held_for(self._chat) > 0:  # a 429: nothing goes until it is over
            self._owe()
        elif not self._drafts and self.shown is None and self._first_sender is None:
            # the first text shows at once (a new message, not an edit of one)
            self._pacer.reserve(self._chat, self._pacer.interval, preview=True)
            await self._update()
        elif self._drafts and not self._drafted and self._pacer.take_first_preview(self._chat):
            # the first draft, at once when the chat's last preview is an interval old: the
            # earlier answer's final message, sent just now, does not hold it back
            await self._update()
        elif self._pacer.try_take(self._chat, preview=True):
            await self._update()
        else:
            self._owe()

    def _owe(self) -> None:
        """The pace (or a 429) says wait: the text is shown when it allows, not dropped
        (a one-sentence answer has no later token to carry it)."""
        if self._later is None or self._later.done():
            self._later = asyncio.create_task(self._update_when_due())

    async def _update(self) -> None:
        """Show the text so far: the draft, a first preview message, or an edit of it."""
        if not self._text.strip():
            return  # reset meanwhile (a discarded answer): nothing to show
        if self._drafts:
            await self._draft()
        elif self.shown is not None:
            await self._edit_preview(self.shown)
        elif self._first_sender is None:  # (else its edit comes with a later token)
            self._first_sender = asyncio.current_task()
            try:
                await self._send_preview()
            finally:
                self._first_sender = None
            self._pacer.done(self._chat, preview=True)

    async def _update_when_due(self) -> None:
        while True:
            await asyncio.sleep(max(0.01, self._pacer.due_in(self._chat)))
            if not self._text.strip():
                return  # reset meanwhile: the slot stays free for what comes next
            if self._pacer.try_take(self._chat, preview=True):
                await self._update()
                return

    async def _draft(self) -> None:
        self._drafted = True  # before the call: a token arriving meanwhile is paced
        try:
            await self._bot.send_message_draft(
                self._chat,
                self.draft_id,
                preview(self._text),
                parse_mode=ParseMode.HTML,
                api_kwargs={"can_stop": True} if self.stop_markup is not None else None,
            )
            self._pacer.done(self._chat, preview=True)
        except RetryAfter as exc:
            self._hold(exc)
        except TelegramError as exc:  # not available here: edit a message instead
            logger.info("drafts unavailable in chat %s (%s): editing instead", self._chat, exc)
            self._drafts = False
            await self.show(Token(""))

    async def _send_preview(self) -> None:
        reply = (
            ReplyParameters(self._reply_to, allow_sending_without_reply=True)
            if self._reply_to
            else None
        )
        try:
            sent = await self._bot.send_message(
                self._chat,
                preview(self._text),
                parse_mode=ParseMode.HTML,
                reply_parameters=reply,
                reply_markup=self.stop_markup,
            )
        except RetryAfter as exc:
            self._hold(exc)
            return
        except TelegramError as exc:
            logger.info("chat %s: preview not shown (%s)", self._chat, exc)
            return
        self.shown = sent.message_id
        if self._record is not None:  # a worker resuming this turn edits it, never reposts
            await self._record({"message_id": sent.message_id})

    async def _edit_preview(self, message_id: int) -> None:
        try:
            await self._bot.edit_message_text(
                preview(self._text),
                chat_id=self._chat,
                message_id=message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=self.stop_markup,
            )
        except RetryAfter as exc:
            self._hold(exc)
        except BadRequest as exc:
            if "not modified" not in str(exc).lower():
                logger.info("chat %s: preview not edited (%s)", self._chat, exc)
        except TelegramError as exc:
            logger.info("chat %s: preview not edited (%s)", self._chat, exc)
        finally:
            self._pacer.done(self._chat, preview=True)  # paced from when Telegram had it

    def _hold(self, exc: RetryAfter) -> None:
        wait = retry_seconds(exc)
        self._pacer.hold(self._chat, wait)
        logger.info("chat %s: 429, preview skipped (retry after %.0f s)", self._chat, wait)
