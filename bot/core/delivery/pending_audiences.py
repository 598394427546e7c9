"""Audiences an adapter left pending to acknowledge sooner, learned before the turn.

An adapter that has no facts on a sender yet (Slack: `users.info` not asked)
stores the message with a pending audience, which reads as a guest's, and
acknowledges at once. Before the delivery's turn reads anything, `admit` has the
platform's resolver learn the audience. It stores what was learned with the
message, in one transaction with the rate limit's correction: the message was
counted, and maybe limited, as a guest's when stored, and an admin or staff
replying to a case is spared. A resumed attempt reads what was stored, so
nothing is looked up or taken back twice. A limited message that learning could
not spare is not looked up (its notice needs no audience: a flood costs no
platform calls). An audience that cannot be learned stays pending, a guest's,
and the next attempt asks again.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession

from bot.core.audiences import Audiences
from bot.core.delivery.admission import RateLimit
from bot.core.delivery.inbox import Delivery
from bot.core.handoff.desk import HandoffDesk
from bot.core.messages import Audience, InboundMessage
from bot.settings import API_PLATFORM, Settings
from storage.db import Database
from storage.repositories import deliveries
from storage.repositories import inbox as inbox_repo

logger = logging.getLogger(__name__)
AudienceResolver = Callable[[InboundMessage], Awaitable[Audience]]
"""An adapter's way of learning a pending audience (see `Audience.pending`)."""


def with_rights(audiences: Audiences, message: InboundMessage) -> InboundMessage:
    """The message with `is_admin` from settings (never trusted from the adapter)."""
    is_admin = audiences.is_admin(message.platform, message.user_id, message.audience)
    return dataclasses.replace(message, is_admin=is_admin)


class PendingAudiences:
    """Learns pending audiences through the adapters' resolvers, and who the limit spares."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        audiences: Audiences,
        limit: RateLimit,
        handoff: HandoffDesk,
    ) -> None:
        self._db = db
        self._settings = settings
        self._audiences = audiences
        self._limit = limit
        self._handoff = handoff
        self._resolvers: dict[str, AudienceResolver] = {}

    def register(self, platform: str, resolver: AudienceResolver) -> None:
        """How `platform` learns an audience it left pending."""
        self._resolvers[platform] = resolver

    async def learn(self, delivery: Delivery) -> Audience | None:
        """The delivery's pending audience as the platform's resolver learns it; None when
        it is not pending, not worth a lookup (limited, and learning could not lift
        it), or could not be learned. Touches no stored state: `admit` applies it."""
        message = delivery.message
        if message.audience.pending and (not delivery.limited or self._may_be_spared(message)):
            return await self._resolved(message)
        return None

    async def admit(self, delivery: Delivery, learned: Audience | None) -> InboundMessage:
        """The delivery's message as its turn (and its renderer) reads it: the audience
        `learn` found, rights from settings, the limit undone for whom it spares."""
        message = delivery.message
        if learned is not None:
            message = dataclasses.replace(message, audience=learned)
        delivery.message = message = with_rights(self._audiences, message)
        if learned is not None:  # with its rights: spared as an admin?
            delivery.limited = await self._store_learned(message, delivery.limited)
        return message

    async def exempt(self, session: AsyncSession, message: InboundMessage) -> bool:
        """Whether the rate limit spares this message (`is_admin` already from settings):
        an admin's, or staff answering a case (`_may_be_exempt` is its half without the
        read: the staff reply's read starts from the same check)."""
        if _admin_spared(message):
            return True
        return await self._handoff.is_staff_reply(session, message)

    async def _resolved(self, message: InboundMessage) -> Audience | None:
        """The audience learned by the platform's resolver; None when there is no
        resolver here or it failed (the message then stays a guest's)."""
        resolve = self._resolvers.get(message.platform)
        if resolve is None:
            logger.warning(
                "no %s adapter here learns who sent %s: answered as a guest",
                message.platform,
                message.delivery_id,
            )
            return None
        try:
            return dataclasses.replace(await resolve(message), pending=False)
        except Exception:  # fail closed: answered as the guest it was stored as
            logger.exception("could not learn the audience of %s", message.delivery_id)
            return None

    async def _store_learned(self, message: InboundMessage, limited: bool) -> bool:
        """Store the learned audience with the message and spare an admin or staff
        member the limit they were counted in as a guest; whether it stays limited."""
        if not self._may_be_exempt(message):
            # nothing to take back out of the limit: one statement, no transaction's round
            # trips (an opening burst stores twenty of these before its first answers show)
            async with self._db.autocommit() as session:
                await inbox_repo.store_learned_audience(
                    session,
                    message.platform,
                    message.delivery_id,
                    dataclasses.asdict(message.audience),
                    limited,
                )
            return limited
        async with self._db.transaction() as session:
            spared = await self.exempt(session, message)
            first = await inbox_repo.store_learned_audience(
                session,
                message.platform,
                message.delivery_id,
                dataclasses.asdict(message.audience),
                limited and not spared,
            )
            if first and spared and self._limit.limit_of(message) > 0:
                await deliveries.uncount_message(session, message.platform, message.user_id)
        return limited and not spared

    def _may_be_exempt(self, message: InboundMessage) -> bool:
        """Whether `exempt` could spare this message (its rights already from settings):
        an admin's, or a reply a read of the cases may show is staff answering one."""
        return _admin_spared(message) or self._handoff.could_be_staff_reply(message)

    def _may_be_spared(self, message: InboundMessage) -> bool:
        """Whether learning who sent a limited message could lift its limit."""
        listed = message.user_id in self._settings.admin_ids(message.platform)
        return listed or (bool(message.reply_to) and self._handoff.enabled)


def _admin_spared(message: InboundMessage) -> bool:
    """An admin (`is_admin` from settings) is spared the limit, except with an API key,
    which keeps its own (as `RateLimit.over`)."""
    return message.is_admin and message.platform != API_PLATFORM
