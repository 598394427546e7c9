"""API questions through the inbox, like every other platform's messages.

A call's question is accepted into the inbox (`ServingCore.accept`: stored,
leased, its turn started by the inbox runner); the API's renderer hands the
turn's events to the call waiting for them. A caller that stops listening
(a closed tab) stops its turn; a drain that stops the turn tells the caller
(StreamStopped). A delivery nobody waits for (its caller left, or it is resumed
after a worker died: the HTTP connection died with it) is finished unanswered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field

from bot.core.answering.answerer import pick_language
from bot.core.delivery.inbox import Delivery
from bot.core.messages import ErrorReply, InboundMessage, Outbound
from bot.core.serving import ServingCore, ShuttingDownError
from textkit.catalog import say

logger = logging.getLogger(__name__)


class StreamStopped(Exception):
    """The turn was stopped by the worker (a drain), not by the caller."""


@dataclass
class _End:
    """The last item of a waiter's queue: how the turn ended (None: answered)."""

    error: BaseException | None = None


@dataclass
class _Waiter:
    """One call waiting for its delivery's events."""

    events: asyncio.Queue[Outbound | _End] = field(default_factory=asyncio.Queue)
    left: asyncio.Event = field(default_factory=asyncio.Event)  # the caller stopped listening


class Waiting:
    """The API's calls waiting for their answers, and the API platform's renderer."""

    def __init__(self, core: ServingCore) -> None:
        self._core = core
        self._waiting: dict[str, _Waiter] = {}

    async def ask(self, message: InboundMessage) -> AsyncGenerator[Outbound, None]:
        """Accept `message` into the inbox and yield its turn's events (nothing for a
        duplicate or while draining; an ErrorReply when the database is down).

        Closing this generator before the end stops the turn (stored as cancelled).
        """
        key = message.delivery_id
        if key in self._waiting:  # the same call already waits here: a duplicate
            return
        waiter = self._waiting[key] = _Waiter()
        try:
            try:
                fresh = await self._core.accept(message)
            except ShuttingDownError:  # the caller is told `draining` (the core is closing)
                return
            except Exception:  # the database is down: said, as a turn that failed
                logger.exception("could not accept API delivery %s", key)
                language = message.language or pick_language(message.text, message.language_hint)
                yield ErrorReply(say("error", language), language)
                return
            if not fresh:
                return
            while True:
                item = await waiter.events.get()
                if isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    return
                yield item
        finally:
            self._waiting.pop(key, None)
            waiter.left.set()  # a renderer still running stops the turn

    async def render(self, delivery: Delivery, events: AsyncIterator[Outbound]) -> None:
        """The API platform's renderer: the events go to the waiting call, until it leaves."""
        waiter = self._waiting.get(delivery.message.delivery_id)
        if waiter is None:  # nobody to show it to: finished unanswered (no turn runs)
            return
        pump = asyncio.ensure_future(self._pump(events, waiter))
        left = asyncio.ensure_future(waiter.left.wait())
        end = _End(StreamStopped())  # unless the wait below ends: stopped by the worker
        failed: BaseException | None = None
        try:
            await asyncio.wait([pump, left], return_when=asyncio.FIRST_COMPLETED)
            failed = pump.exception() if pump.done() else None
            end = _End(failed)  # answered, failed, or the caller left (nobody reads it)
        finally:
            left.cancel()
            if not pump.done():  # the caller left, or the drain stopped this delivery
                pump.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pump
            waiter.events.put_nowait(end)
        if failed is not None:  # logged by the core; another attempt finds nobody waiting
            raise failed

    @staticmethod
    async def _pump(events: AsyncIterator[Outbound], waiter: _Waiter) -> None:
        async for event in events:
            waiter.events.put_nowait(event)

    def stop_all(self) -> None:
        """End every call still waiting with StreamStopped (the worker is stopping)."""
        for waiter in list(self._waiting.values()):
            waiter.events.put_nowait(_End(StreamStopped()))
