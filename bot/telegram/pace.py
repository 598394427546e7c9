"""One pace per Telegram chat, shared by the previews and the outbox's sends.

Telegram allows about one message a second in a chat (20 a minute in a group)
and answers a faster caller with 429 and `retry_after`. Every update to a chat
(a draft, a preview message or its edit, an outbox send) takes the chat's next
slot here, so however many answers a chat has in flight it never gets more
than one update per TELEGRAM_UPDATE_INTERVAL; a chat Telegram answered with a
429 is held until its `retry_after`.
"""

from __future__ import annotations

import asyncio
import time
import warnings
from datetime import timedelta

from telegram.error import RetryAfter
from telegram.warnings import PTBDeprecationWarning


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
