"""ServingCore: claims a delivery, then runs a command, an upload or a turn, as outbound events.

Adapters call `handle(message)` and render every event it yields, then let the
iteration finish: the delivery is marked done only then (the reply was posted).
An adapter that fails half-way leaves the claim to be released, so the
platform's redelivery is answered instead of lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from bot.core.admin import Actor, AdminService
from bot.core.audiences import Audiences
from bot.core.chat_state import ChatState
from bot.core.commands import CommandRunner
from bot.core.conversation_locks import ConversationLocks
from bot.core.messages import (
    Audience,
    ErrorReply,
    InboundMessage,
    Notifier,
    Outbound,
    Progress,
    Reply,
)
from bot.core.upload_desk import FileFetcher, UploadDesk
from bot.service import AnswerService
from bot.settings import CONSOLE_PLATFORMS, Settings
from graph.replies import progress_message
from storage.db import Database
from storage.repositories import conversations as conv_repo
from storage.repositories import deliveries
from storage.repositories import feedback as feedback_repo
from storage.repositories import memory as memory_repo
from textkit.catalog import say
from textkit.scripts import detect_language

logger = logging.getLogger(__name__)


def pick_language(text: str, hint: str | None) -> str:
    """The reply language: the message's script when it has Chinese, else the platform hint."""
    detected = detect_language(text[:2000]) if text.strip() else "en"  # a sample is plenty
    if detected != "en" or not hint:
        return detected
    hint = hint.lower().replace("_", "-")
    if hint.startswith("zh"):
        simplified = hint in ("zh", "zh-cn", "zh-sg", "zh-hans") or hint.startswith("zh-hans")
        return "zh-hans" if simplified else "zh-hant"
    return "en"


class ServingCore:
    """The platform-neutral part of serving, shared by Slack, Telegram and the console."""

    def __init__(
        self, db: Database, answers: AnswerService, admin: AdminService, settings: Settings
    ) -> None:
        self._db = db
        self._answers = answers
        self.admin = admin
        self._commands = CommandRunner(admin)
        self.chat_state = ChatState(db)
        self._settings = settings
        self.audiences = Audiences(settings)
        self.uploads = UploadDesk(
            db,
            admin,
            self.chat_state,
            self.audiences.is_admin,
            self.audiences.collections,
            self.audiences.readers,
        )
        self._locks = ConversationLocks(db, settings.max_concurrent_turns)
        self._active = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.closing = False

    def actor(self, message: InboundMessage) -> Actor:
        """The AdminService actor of a message's sender."""
        return Actor(message.platform, message.user_id, message.is_admin)

    async def press(
        self,
        platform: str,
        user_id: str,
        action: str,
        value: str,
        fetch: FileFetcher,
        audience: Audience | None = None,
        language: str | None = None,
    ) -> Reply:
        """A core button (an upload offer, a held upload) pressed by `user_id`.

        `fetch` downloads a pending file's platform reference; only the admin who
        sent the file may choose, anyone else's press changes nothing. `language`:
        the presser's, when the adapter knows it (for replies with no upload to go by).
        """
        return await self.uploads.press(platform, user_id, audience, action, value, fetch, language)

    def register_notifier(self, platform: str, notifier: Notifier) -> None:
        """How upload results reach admins on `platform` (the adapter sends a message)."""
        jobs = self.admin.jobs
        if jobs is not None:
            jobs.notifiers[platform] = notifier

    # --- the entry point -------------------------------------------------------

    async def handle(self, message: InboundMessage) -> AsyncGenerator[Outbound, None]:
        """Claim the delivery and produce its reply as events (nothing for a duplicate)."""
        if self.closing:  # not claimed: the redelivery goes to a worker that stays up
            logger.info(
                "shutting down: left %s/%s unclaimed", message.platform, message.delivery_id
            )
            return
        message = dataclasses.replace(
            message,
            is_admin=self.audiences.is_admin(message.platform, message.user_id, message.audience),
        )
        language = message.language or pick_language(message.text, message.language_hint)
        try:
            claimed, limited = await self._claim(message)
        except Exception:  # the database is down: say so, the redelivery may succeed
            logger.exception("could not claim delivery %s", message.delivery_id)
            yield ErrorReply(say("error", language), language)
            return
        if not claimed:
            return
        self._active += 1
        self._idle.clear()
        finished = False
        try:
            try:
                # aclosing at every level: an adapter that stops listening closes the
                # turn now (stored as cancelled) rather than when the loop finalises it
                async with contextlib.aclosing(self._dispatch(message, language, limited)) as out:
                    async for event in out:
                        yield event
            except Exception:
                logger.exception("delivery %s failed", message.delivery_id)
                yield ErrorReply(say("error", language), language)
            finished = True
        finally:
            try:
                await asyncio.shield(self._settle(message, finished))
            finally:
                self._active -= 1
                if not self._active:
                    self._idle.set()

    async def _settle(self, message: InboundMessage, finished: bool) -> None:
        try:
            async with self._db.transaction() as session:
                if finished:
                    await deliveries.complete(session, message.platform, message.delivery_id)
                else:
                    await deliveries.release(session, message.platform, message.delivery_id)
        except Exception:  # the lease expires on its own
            logger.exception("could not settle delivery %s", message.delivery_id)

    async def drain(self, timeout: float) -> bool:
        """Stop taking deliveries and wait for the ones in flight; False on timeout."""
        self.closing = True
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
            return True
        except TimeoutError:
            return False

    async def _claim(self, message: InboundMessage) -> tuple[bool, bool]:
        """(claimed, over the rate limit), in one transaction; duplicates are not counted."""
        limit = self._settings.rate_limit_per_minute
        async with self._db.transaction() as session:
            if not await deliveries.claim(
                session, message.platform, message.delivery_id, self._settings.delivery_lease_s
            ):
                return False, False
            if limit <= 0 or message.platform in CONSOLE_PLATFORMS or message.is_admin:
                return True, False
            count = await deliveries.count_message(session, message.platform, message.user_id)
        return True, count > limit

    async def _dispatch(
        self, message: InboundMessage, language: str, limited: bool
    ) -> AsyncGenerator[Outbound, None]:
        if limited:
            limit = self._settings.rate_limit_per_minute
            yield Reply(say("rate_limited", language, limit=limit), language, "rate_limited")
            return
        collections = self.audiences.collections(message.platform, message.audience)
        if message.command:
            reply = await self._commands.run(
                self.actor(message),
                message.command,
                message.args,
                language,
                collections,
                message.attachments[0] if message.attachments else None,
            )
            yield self.audiences.refusal(message, reply, language)
            return
        if message.attachments:
            for attachment in message.attachments:
                reply = await self.uploads.receive(message, attachment, language)
                yield self.audiences.refusal(message, reply, language)
            return
        async with contextlib.aclosing(self._turn(message, language, collections)) as turn:
            async for event in turn:
                yield event

    # --- questions -------------------------------------------------------------

    async def _turn(
        self, message: InboundMessage, language: str, collections: Sequence[str] | None
    ) -> AsyncGenerator[Outbound, None]:
        # at once, before waiting for a turn slot: the adapter shows that work started
        yield Progress("received", progress_message("received", language), language)
        turn = self._answers.stream(
            message.text,
            conversation=message.conversation_key,
            user=message.user_id,
            platform=message.platform,
            collections=collections,
            language=message.language,
            apology_language=language,
        )
        async with (
            self._locks.hold(message.platform, message.conversation_key),
            contextlib.aclosing(turn) as stream,
        ):
            async for event in stream:  # the service's events are the core's: forwarded
                yield event

    async def first_delivery(self, platform: str, delivery_id: str) -> bool:
        """Claim and complete at once: for quick adapter-local actions (/start, a button)."""
        async with self._db.transaction() as session:
            if not await deliveries.claim(session, platform, delivery_id, 0):
                return False
            await deliveries.complete(session, platform, delivery_id)
            return True

    async def has_conversation(self, platform: str, key: str) -> bool:
        """True when the bot already answered in this conversation (a thread it is part of)."""
        async with self._db.sessions() as session:
            return await conv_repo.find_id(session, platform, key) is not None

    async def forms(self, platform: str, audience: Audience | None = None) -> list[dict[str, Any]]:
        """The forms this user on `platform` may read (Slack without `audience`: a guest's)."""
        return await self.admin.list_forms(
            Actor(platform, "", False), self.audiences.collections(platform, audience)
        )

    async def form_file(self, platform: str, name: str, audience: Audience | None = None) -> Any:
        """The stored file of a form an answer offered, if this user may read it."""
        return await self._answers.export_form_file(
            name, self.audiences.collections(platform, audience)
        )

    # --- feedback --------------------------------------------------------------

    async def feedback(
        self, platform: str, user_id: str, message_id: int, helpful: bool, where: str
    ) -> bool:
        """Store (or change) a user's vote on an answer; False when it cannot count.

        `where` is the conversation the click came from, as the adapter verified
        it against the platform's message (a Slack thread `channel:ts`, a Telegram
        chat id): the answer must have been posted there, on this platform. Anything
        else (no such answer, another platform's, another chat's) changes nothing.
        Stored in Postgres; with Langfuse keys also a score on the answer's trace.
        """
        async with self._db.transaction() as session:
            found, trace_id = await feedback_repo.vote(
                session, message_id, platform, user_id, 1 if helpful else -1, where
            )
            if found:  # one vote per person per remembered answer (see memory_repo.vote)
                voter = self._answers.telemetry.pseudonyms.user(platform, user_id)
                await memory_repo.vote(session, message_id, trace_id, voter or "", helpful)
        if not found:
            logger.info("vote on answer %s from %s/%s not counted", message_id, platform, where)
        if found:
            self._answers.telemetry.feedback(trace_id, message_id, platform, user_id, helpful)
        return found
