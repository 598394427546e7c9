"""The console's turns: claimed and answered in the caller's task, then settled.

Chat adapters go through the inbox (`bot.core.delivery.intake`); the console
and the command line read a turn's events themselves. A console delivery is
claimed (and counted in the rate limit) in one transaction, answered as the
inbox would answer it, and completed, or released when the caller stopped
listening. The turns under way are counted, so a drain waits for them too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator

from bot.core.answering.answerer import Answerer, pick_language
from bot.core.audiences import Audiences
from bot.core.delivery.admission import RateLimit
from bot.core.delivery.inbox import Delivery, InboxRunner
from bot.core.delivery.pending_audiences import with_rights
from bot.core.messages import ErrorReply, InboundMessage, Outbound
from bot.settings import Settings
from bot.telemetry.failures import log_failure
from storage.db import Database
from storage.repositories import deliveries
from textkit.catalog import say

logger = logging.getLogger(__name__)


class ConsoleTurns:
    """Answers console deliveries in the caller's task, and drains the worker."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        inbox: InboxRunner,
        audiences: Audiences,
        limit: RateLimit,
        answerer: Answerer,
    ) -> None:
        self._db = db
        self._settings = settings
        self._inbox = inbox
        self._audiences = audiences
        self._limit = limit
        self._answerer = answerer
        self._active = 0  # console deliveries (`handle`) in flight
        self._idle = asyncio.Event()
        self._idle.set()

    async def handle(self, message: InboundMessage) -> AsyncGenerator[Outbound, None]:
        """Claim a console delivery and produce its reply as events (nothing for a duplicate)."""
        if self._inbox.closing:
            return
        message = with_rights(self._audiences, message)
        language = message.language or pick_language(message.text, message.language_hint)
        try:
            claimed, limited = await self._claim(message)
        except Exception as exc:  # the database is down: say so
            log_failure(logger, f"could not claim delivery {message.delivery_id}", exc)
            yield ErrorReply(say("error", language), language)
            return
        if not claimed:
            return
        self._active += 1
        self._idle.clear()
        finished = False
        try:
            # the inbox's way through, in the caller's task; aclosing at every level: a
            # caller that stops listening closes the turn now (stored as cancelled)
            events = self._answerer.events(Delivery(message, limited=limited), message, language)
            async with contextlib.aclosing(events) as out:
                async for event in out:
                    yield event
            finished = True
        finally:
            try:
                await asyncio.shield(self._settle(message, finished))
            finally:
                self._active -= 1
                if not self._active:
                    self._idle.set()

    async def _claim(self, message: InboundMessage) -> tuple[bool, bool]:
        """(claimed, over the rate limit), in one transaction; duplicates are not counted."""
        async with self._db.transaction() as session:
            if not await deliveries.claim(
                session, message.platform, message.delivery_id, self._settings.delivery_lease_s
            ):
                return False, False
            return True, await self._limit.over(session, message)

    async def _settle(self, message: InboundMessage, finished: bool) -> None:
        """Complete the delivery, or release it when its turn did not finish."""
        try:
            async with self._db.autocommit() as session:  # one statement
                if finished:
                    await deliveries.complete(session, message.platform, message.delivery_id)
                else:
                    await deliveries.release(session, message.platform, message.delivery_id)
        except Exception as exc:  # the lease expires on its own
            log_failure(logger, f"could not settle delivery {message.delivery_id}", exc)

    async def drain(self, timeout: float) -> bool:
        """Accept nothing more; let the inbox's turns and the console's finish within
        `timeout`; False when some had to stop.

        Deliveries not started yet, and those still running after `timeout`,
        are let go: the next worker answers them from the inbox.
        """
        self._inbox.closing = True
        started = asyncio.get_running_loop().time()
        drained = await self._inbox.drain(timeout)
        left = max(0.0, timeout - (asyncio.get_running_loop().time() - started))
        try:
            await asyncio.wait_for(self._idle.wait(), left)
        except TimeoutError:
            return False
        return drained
