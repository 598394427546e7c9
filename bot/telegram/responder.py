"""One answer in one Telegram chat while it is written: typing, then a streamed preview.

In private chats the answer streams as a draft (`sendMessageDraft`) and the
answer is then sent as a real message; where drafts are refused (groups, an
older Bot API) the first text is sent as a message and edited as more arrives
(its id is recorded with the delivery at once, so a worker resuming the turn
after a crash edits that message rather than leaving it half-written). The
final messages are not sent here: they go through the outbox (see
`bot.telegram.sender`). Previews and the outbox's sends share one pace per chat
(`ChatPacer`): never more than one per TELEGRAM_UPDATE_INTERVAL in any chat,
however many answers it has in flight, but for an answer's first text: a
preview message (edit mode) is a new message and goes at once; a first draft
goes at once when the chat has shown no preview within the interval (the
earlier answer's final message, sent just before the next question came, does
not hold it back). A 429 on a preview is never waited for inside the turn: the
chat is held until `retry_after` and previews are skipped.
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
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, ReplyParameters
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, RetryAfter, TelegramError
from telegram.warnings import PTBDeprecationWarning

from bot.core.messages import Reset, Token
from bot.telegram.render import preview

logger = logging.getLogger(__name__)
TYPING_EVERY_S = 4.5  # Telegram shows "typing…" for 5 s


def retry_seconds(exc: RetryAfter) -> float:
    """`retry_after` in seconds (PTB gives an int or a timedelta)."""
    with warnings.catch_warnings():  # PTB warns that the int will become a timedelta
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class ChatPacer:
    """At most one update (draft, edit, or an outbox send) per chat per interval, shared by
    all answers in the chat; a chat Telegram answered with a 429 is held until its
    `retry_after`. Previews (drafts, edits, a preview message) are also remembered on
    their own, from when one is taken until an interval after it returned: an answer's
    first draft may go at once when none was within the interval
    (`take_first_preview`), whatever was sent."""

    def __init__(self, interval_s: float) -> None:
        self.interval = interval_s
        self._next: dict[int, float] = {}  # chat → when the next update may go
        self._held: dict[int, float] = {}  # chat → until when a 429 holds it
        self._preview_next: dict[int, float] = {}  # chat → when a first preview may go

    def try_take(self, chat_id: int, preview: bool = False) -> bool:
        """Reserve the chat's next slot if it is due now (`preview`: for a preview)."""
        now = time.monotonic()
        if now < self._next.get(chat_id, 0.0):
            return False
        self.reserve(chat_id, self.interval, preview)
        if len(self._next) > 10_000:  # forget chats that are long quiet
            self._next = {c: t for c, t in self._next.items() if t > now}
            self._held = {c: t for c, t in self._held.items() if t > now}
            self._preview_next = {c: t for c, t in self._preview_next.items() if t > now}
        return True

    async def take(self, chat_id: int) -> None:
        """Wait for the chat's next slot and reserve it."""
        while not self.try_take(chat_id):
            await asyncio.sleep(max(0.01, self._next[chat_id] - time.monotonic()))

    def done(self, chat_id: int, preview: bool = False) -> None:
        """A call to the chat just returned (`preview`: a draft or a preview message or
        edit): the next one waits a full interval from now.

        Reserving at the start alone is not enough: Telegram sees a call when it
        arrives, and arrival times jitter; counting from the return keeps the
        gap Telegram sees at least the interval.
        """
        self.reserve(chat_id, self.interval, preview)

    def take_first_preview(self, chat_id: int) -> bool:
        """Reserve the chat's next slot for an answer's first preview if no preview went
        (or is under way) within the interval and no 429 holds the chat, even right
        after a send."""
        now = time.monotonic()
        if now < self._preview_next.get(chat_id, 0.0) or self.held_for(chat_id) > 0:
            return False
        self.reserve(chat_id, self.interval, preview=True)
        return True

    def reserve(self, chat_id: int, seconds: float, preview: bool = False) -> None:
        """No other update to this chat for `seconds` (one is under way; `preview`: a
        preview, which also holds the next answer's first preview back)."""
        until = time.monotonic() + seconds
        self._next[chat_id] = max(self._next.get(chat_id, 0.0), until)
        if preview:
            self._preview_next[chat_id] = max(self._preview_next.get(chat_id, 0.0), until)

    def hold(self, chat_id: int, seconds: float) -> None:
        """No update to this chat for `seconds` (Telegram said 429)."""
        until = time.monotonic() + seconds
        self._held[chat_id] = max(self._held.get(chat_id, 0.0), until)
        self.reserve(chat_id, seconds)

    def held_for(self, chat_id: int) -> float:
        """Seconds a 429 still holds the chat (0: not held)."""
        return max(0.0, self._held.get(chat_id, 0.0) - time.monotonic())

    def due_in(self, chat_id: int) -> float:
        """Seconds until the chat's next update may go (0: now)."""
        return max(0.0, self._next.get(chat_id, 0.0) - time.monotonic())


class TelegramResponder:
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
