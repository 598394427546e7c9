"""API questions through the inbox, like every other platform's messages.

A call's question is accepted into the inbox (`ServingCore.accept`: stored,
leased, its turn started by the inbox runner); the API's renderer hands the
turn's events to the call waiting for them. A caller that stops listening
(a closed tab) stops its turn, unless it sent an Idempotency-Key: then the turn
runs to the end and its answer is kept with the delivery (`posted`), for the
call sent again to collect. A drain that stops the turn tells the caller
(StreamStopped). A delivery nobody waits for (its caller left, or it is resumed
after a worker died: the HTTP connection died with it) is finished unanswered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.core.answering.answerer import pick_language
from bot.core.delivery.inbox import Delivery
from bot.core.messages import ErrorReply, InboundMessage, Outbound
from bot.core.serving import ServingCore, ShuttingDownError
from textkit.catalog import say

logger = logging.getLogger(__name__)


KEPT = "api_answer"  # the key of a kept answer among the delivery's posted references
# what a retried call gets of a turn's last event: {"status", "body"} (None: nothing)
Keeper = Callable[[Outbound, InboundMessage], dict[str, Any] | None]


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
    kept: bool = False  # sent with an Idempotency-Key: run to the end, its answer kept
    last: Outbound | None = None  # the turn's last event so far
    accepted: bool = False  # stored fresh in the inbox: its turn runs here
    detached: bool = False  # the call stopped reading (answered, or its client left)
    rendered: bool = False  # the renderer is done with it


class Waiting:
    """The API's calls waiting for their answers, and the API platform's renderer."""

    def __init__(self, core: ServingCore, keep: Keeper | None = None) -> None:
        """`keep`: what of a turn's last event a retried call gets (None: nothing kept)."""
        self._core = core
        self._keep = keep
        self._waiting: dict[str, _Waiter] = {}

    async def ask(
        self, message: InboundMessage, kept: bool = False
    ) -> AsyncGenerator[Outbound, None]:
        """Accept `message` into the inbox and yield its turn's events (nothing for a
        duplicate or while draining; an ErrorReply when the database is down).

        Closing this generator before the end stops the turn (stored as cancelled),
        unless `kept` (the call has an Idempotency-Key, so its client may ask again):
        then the turn runs to the end and its answer is kept with the delivery, for the
        retry to collect (`ServingCore.mailbox.kept_answer`).
        """
        key = message.delivery_id
        if key in self._waiting:  # the same call already waits here: a duplicate
            return
        waiter = self._waiting[key] = _Waiter(kept=kept)
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
            waiter.accepted = True  # its renderer comes (here: this worker leases it)
            while True:
                item = await waiter.events.get()
                if isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    return
                yield item
        finally:
            waiter.detached = True
            if not waiter.kept:
                waiter.left.set()  # a renderer still running stops the turn
            if not (waiter.kept and waiter.accepted) or waiter.rendered:
                self._waiting.pop(key, None)
            # else a kept turn runs on without its caller: its renderer lets go of it

    async def render(self, delivery: Delivery, events: AsyncIterator[Outbound]) -> None:
        """The API platform's renderer: the events go to the waiting call, until it leaves."""
        key = delivery.message.delivery_id
        waiter = self._waiting.get(key)
        if waiter is None:  # nobody to show it to: finished unanswered (no turn runs)
            return
        try:
            await self._render(delivery, events, waiter)
        finally:
            waiter.rendered = True
            if waiter.detached:  # its caller left before the end (a kept turn)
                self._waiting.pop(key, None)

    async def _render(
        self, delivery: Delivery, events: AsyncIterator[Outbound], waiter: _Waiter
    ) -> None:
        pump = asyncio.ensure_future(self._pump(events, waiter))
        left = asyncio.ensure_future(waiter.left.wait())
        end = _End(StreamStopped())  # unless the wait below ends: stopped by the worker
        failed: BaseException | None = None
        answered = False
        try:
            await asyncio.wait([pump, left], return_when=asyncio.FIRST_COMPLETED)
            failed = pump.exception() if pump.done() else None
            answered = pump.done() and failed is None
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
        if answered and waiter.kept and self._keep is not None and waiter.last is not None:
            answer = self._keep(waiter.last, delivery.message)
            if answer is not None:  # stored before the delivery is marked done
                await delivery.record_posted({KEPT: answer})

    @staticmethod
    async def _pump(events: AsyncIterator[Outbound], waiter: _Waiter) -> None:
        async for event in events:
            waiter.last = event
            waiter.events.put_nowait(event)

    def stop_all(self) -> None:
        """End every call still waiting with StreamStopped (the worker is stopping)."""
        for waiter in list(self._waiting.values()):
            waiter.events.put_nowait(_End(StreamStopped()))
