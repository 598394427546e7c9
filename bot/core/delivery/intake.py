"""The inbox's intake: an adapter's message stored and started, and a delivery answered.

Adapters call `accept(message)` before they acknowledge the platform: the
message is then in Postgres and its answer is the core's job. The turn runs in
the background and its events go to the renderer the adapter registered; the
delivery is done when the renderer returns (final messages are in the outbox
by then, sent off the turn). A worker that dies leaves the message to another
(see `bot.core.delivery.inbox`); `answer` is what the inbox runs for each one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from typing import Any

from bot.core.answering.answerer import Answerer, pick_language
from bot.core.audiences import Audiences
from bot.core.delivery.ack_window import AckWindow
from bot.core.delivery.admission import RateLimit
from bot.core.delivery.envelopes import encode
from bot.core.delivery.inbox import Delivery, InboxRunner
from bot.core.delivery.pending_audiences import PendingAudiences, with_rights
from bot.core.messages import InboundMessage
from bot.settings import Settings
from bot.telemetry.failures import log_failure
from storage.db import Database
from storage.repositories import inbox as inbox_repo

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Accepted:
    """What accepting a message did: true when it was stored (false: a duplicate, already
    answered or under way); `limited` when stored over its sender's rate limit (it gets
    the limit's notice, or nothing, instead of an answer)."""

    stored: bool
    limited: bool = False

    def __bool__(self) -> bool:
        return self.stored


class ShuttingDownError(Exception):
    """The worker is draining: the adapter must not acknowledge (the platform redelivers)."""


class Intake:
    """Accepts adapters' messages into the inbox and answers the deliveries it starts."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        inbox: InboxRunner,
        acks: AckWindow,
        audiences: Audiences,
        limit: RateLimit,
        pending: PendingAudiences,
        answerer: Answerer,
    ) -> None:
        self._db = db
        self._settings = settings
        self._inbox = inbox
        self._acks = acks
        self._audiences = audiences
        self._limit = limit
        self._pending = pending
        self._answerer = answerer

    async def accept(self, message: InboundMessage, *, redelivered: bool = True) -> Accepted:
        """Store an adapter's message in the inbox and start answering it; false for a
        duplicate (`Accepted.limited`: stored, but over its sender's rate limit).

        Called before the adapter acknowledges the platform. During a drain a
        message the platform delivers again raises ShuttingDownError (the adapter
        does not acknowledge it); one it never sends again (`redelivered=False`: a
        Slack slash command) is stored with its lease already run out, for the next
        worker's sweep. When the database is down its error propagates: the adapter
        does not acknowledge, and the platform redelivers (or shows an error).
        """
        park = self._inbox.closing
        if park and redelivered:
            raise ShuttingDownError(f"draining: {message.platform}/{message.delivery_id} refused")
        message = with_rights(self._audiences, message)
        payload = encode(message)
        # the turn here runs the message as stored (no NUL: Postgres refuses it in text)
        message = dataclasses.replace(message, text=payload["text"])
        # in its conversation's line from here, before the first wait: messages arriving
        # together whose inserts commit in the other order still go on as they arrived
        place = None if park else self._inbox.line_up(message)
        started = False
        try:
            with self._acks.accept():
                stored, limited = await self._store(message, payload, park)
            if stored and not park:
                self._inbox.start(Delivery(message, limited=limited, place=place))
                started = True
        finally:
            if place is not None and not started:  # a duplicate, or not stored: out of line
                place.leave()
        return Accepted(stored, limited)

    async def _store(
        self, message: InboundMessage, payload: dict[str, Any], park: bool
    ) -> tuple[bool, bool]:
        """Put the message in the inbox (leased here unless parked) and count it against its
        sender's rate limit, in one transaction: (stored, over the limit)."""
        async with self._db.transaction() as session:
            stored = await inbox_repo.accept(
                session,
                message.platform,
                message.delivery_id,
                payload,
                0 if park else self._settings.delivery_lease_s,
                "" if park else self._inbox.owner,
            )
            limited = (
                stored
                and not await self._pending.exempt(session, message)
                and await self._limit.over(session, message)
            )
            if limited:
                await inbox_repo.mark_limited(session, message.platform, message.delivery_id)
        return stored, limited

    def acknowledging(self) -> contextlib.AbstractContextManager[None]:
        """Around an adapter's work on the core's loop before it acknowledges a message
        (its own reads, then `accept`): deliveries already started wait meanwhile."""
        return self._acks.accept()

    async def answer(self, delivery: Delivery) -> None:
        """Run one inbox delivery through its platform's renderer, then settle it."""
        platform = delivery.message.platform
        renderer = self._inbox.renderers.get(platform)
        if renderer is None:  # accepted by an adapter this worker does not run
            await self._inbox.retry_later(delivery, f"no {platform} adapter here")
            return
        # acknowledgements being prepared go first; then who sent it is asked at once
        # (lookups of one conversation overlap), and what was learned is applied and
        # stored in arrival order
        await self._acks.quiet()
        learning = asyncio.ensure_future(self._pending.learn(delivery))
        try:
            await delivery.reach_front()
            message = await self._pending.admit(delivery, await learning)
        except Exception as exc:  # the database, while learning who asks: another attempt
            log_failure(logger, f"delivery {delivery.message.delivery_id} not admitted", exc)
            await asyncio.shield(self._inbox.retry_later(delivery, type(exc).__name__))
            return
        finally:
            learning.cancel()  # cancelled while in line: the lookup is not needed
        language = message.language or pick_language(message.text, message.language_hint)
        events = self._answerer.events(delivery, message, language)
        try:
            async with contextlib.aclosing(events) as out:
                await renderer(delivery, out)
        except Exception as exc:  # the reply could not be shown: another attempt, later
            log_failure(logger, f"delivery {message.delivery_id} not answered", exc)
            # the type only: an error's text may quote the message (kept for days)
            await asyncio.shield(self._inbox.retry_later(delivery, type(exc).__name__))
            return
        try:
            await asyncio.shield(self._inbox.finish(message))
        except Exception as exc:  # answered; a resumed attempt finds its final sends stored
            log_failure(logger, f"could not mark delivery {message.delivery_id} done", exc)
