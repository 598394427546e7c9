"""What a delivery says: the hand-off desk's relay, a command's reply, an upload's, or a turn.

The intake (`bot.core.delivery.intake`) takes a message from the inbox, learns
who sent it and hands it here (the console's turns come straight here);
`Answerer.events` yields what the platform's renderer shows, in order: a note
when the message waits behind another in its conversation, "received" when its
turn has a slot, then the turn's own events. The conversation lock and
the turn slot are held here for as long as the turn runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import AsyncGenerator, Sequence

from bot.core.admin.audit import Actor
from bot.core.admin.commands import CommandRunner
from bot.core.admin.upload_desk import UploadDesk
from bot.core.answering.media import MediaReader, media_of, question_text
from bot.core.answering.turn_stops import TurnStops
from bot.core.audiences import Audiences
from bot.core.delivery.admission import RateLimit
from bot.core.delivery.conversation_locks import ConversationLocks
from bot.core.delivery.inbox import Delivery
from bot.core.handoff.desk import HandoffDesk
from bot.core.messages import (
    Attachment,
    ErrorReply,
    FinalAnswer,
    InboundMessage,
    Outbound,
    Progress,
    Queued,
    Reply,
)
from bot.core.source_links import SourceLinks
from bot.settings import API_PLATFORM
from bot.telemetry.failures import log_failure
from bot.turn.service import TurnStream
from graph.replies import progress_message
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


def actor_of(message: InboundMessage) -> Actor:
    """The AdminService actor of a message's sender."""
    return Actor(message.platform, message.user_id, message.is_admin)


class Answerer:
    """Turns an admitted delivery into the events its renderer shows.

    It keeps the parts `ServingCore` built and handed in: one replaced on the core
    afterwards does not reach it.
    """

    def __init__(
        self,
        *,
        audiences: Audiences,
        handoff: HandoffDesk,
        commands: CommandRunner,
        uploads: UploadDesk,
        limit: RateLimit,
        locks: ConversationLocks,
        stops: TurnStops,
        stream_turn: TurnStream,
        media: MediaReader,
        links: SourceLinks,
    ) -> None:
        self._audiences = audiences
        self._handoff = handoff
        self._commands = commands
        self._uploads = uploads
        self._limit = limit
        self._locks = locks
        self._stops = stops
        self._stream_turn = stream_turn
        self._media = media
        self._links = links

    async def events(
        self, delivery: Delivery, message: InboundMessage, language: str
    ) -> AsyncGenerator[Outbound, None]:
        """A delivery's reply as events: the limit's notice (once a window), or its answer;
        any failure becomes a clear error reply, never a stack trace.

        `message` is the delivery's message as admitted (its audience learned).
        """
        try:
            if delivery.limited:
                delivery.go_on()  # a notice at most: nothing whose order is kept
                notice = await self._limit.notice(message, language)
                if notice is not None:
                    yield Reply(notice, language, "rate_limited")
                return
            async with contextlib.aclosing(self._dispatch(message, language, delivery)) as out:
                async for event in out:
                    yield _noted(event, language) if delivery.late else event
        except Exception as exc:
            log_failure(logger, f"delivery {message.delivery_id} failed", exc)
            yield ErrorReply(say("error", language), language)

    async def _dispatch(
        self, message: InboundMessage, language: str, delivery: Delivery
    ) -> AsyncGenerator[Outbound, None]:
        begin = delivery.begin
        collections = self._audiences.collections(message.platform, message.audience)
        handed = await self._handoff.route(message, language)
        if handed is not None:  # staff and asker talking through a case: not the bot's turn
            delivery.go_on()  # relayed (stored in the outbox, in order)
            begin()
            if not handed and message.platform == API_PLATFORM and message.command != "bot":
                # an HTTP call needs an answer where a chat shows nothing: said to the caller
                handed = [Reply(say("handoff:relayed", language), language, "handoff_relayed")]
            for reply in handed:
                yield reply
            return
        media = media_of(message)
        if media is not None:  # a voice message or photo: a question, once read
            asked = self._asked(message, media, language, collections, delivery)
            async with contextlib.aclosing(asked) as events:
                async for event in events:
                    yield event
            return
        if message.command or message.attachments:
            delivery.go_on()  # started in arrival order; a command's reply is its own
        if message.command:
            begin()
            reply = await self._commands.run(
                actor_of(message),
                message.command,
                message.args,
                language,
                collections,
                message.attachments[0] if message.attachments else None,
                conversation_key=message.conversation_key,
            )
            yield self._audiences.refusal(message, reply, language)
            return
        if message.attachments:
            begin()
            for attachment in message.attachments:
                reply = await self._uploads.receive(message, attachment, language)
                yield self._audiences.refusal(message, reply, language)
            return
        turn = self._turn(message, language, collections, delivery)
        async with contextlib.aclosing(turn) as events:
            async for event in events:
                yield event

    async def _asked(
        self,
        message: InboundMessage,
        media: Attachment,
        language: str,
        collections: Sequence[str] | None,
        delivery: Delivery,
    ) -> AsyncGenerator[Outbound, None]:
        """A voice message or photo answered as the question it carries: transcribed or
        OCR'd, then one turn on its text (with the caption), in the text's language. A
        voice message's transcript is shown first ("I heard: ..."), so the asker sees
        what was answered; one that cannot be read gets one line saying why."""
        delivery.begin()  # reading it is the work: a drain lets it finish
        reading = await self._media.read(media, language)
        if reading.text is None:
            delivery.go_on()
            # the reason only: never the file's content
            logger.info(
                "%s of delivery %s not read: %s", media.kind, message.delivery_id, reading.reason
            )
            yield Reply(reading.notice or say("error", language), language, f"{media.kind}_unread")
            return
        text = question_text(message.text, reading.text)
        if message.language is None:  # not chosen (/lang): the language it was said in
            language = pick_language(text, message.language_hint)
        if media.kind == "voice":
            heard = say("media:heard", language, text=reading.text)
            yield Reply(heard, language, "heard", {"text": reading.text})
        asked = dataclasses.replace(message, text=text, attachments=())
        async with contextlib.aclosing(self._turn(asked, language, collections, delivery)) as turn:
            async for event in turn:
                yield event

    async def _turn(
        self,
        message: InboundMessage,
        language: str,
        collections: Sequence[str] | None,
        delivery: Delivery,
    ) -> AsyncGenerator[Outbound, None]:
        platform, key = message.platform, message.conversation_key
        # read by the turn when it starts (after the slot is held): since this worker
        # took the message until here, and of that the wait for the conversation and a slot
        waited: dict[str, float] = {}
        asked_slot = time.monotonic()
        async with contextlib.AsyncExitStack() as held:
            # from now on (in line or running) the asker's Stop ends this turn
            stop = held.enter_context(
                self._stops.running(platform, message.delivery_id, message.user_id)
            )
            turn = self._stream_turn(
                message.text,
                conversation=message.conversation_key,
                user=message.user_id,
                platform=message.platform,
                collections=collections,
                language=message.language,
                apology_language=language,
                top_k=message.top_k,
                threshold=message.threshold,
                stop=stop,
                **({"history": message.history} if message.history is not None else {}),
                waited_ms=waited,
            )
            if self._locks.busy(platform, key):
                # in line now, in arrival order: the wait starts before the note is shown
                place = asyncio.ensure_future(
                    held.enter_async_context(self._locks.hold(platform, key, delivery.go_on))
                )
                try:
                    # in hand, not yet worked on: said as such (no typing while it waits)
                    yield Queued(say("inbox:queued", language), language)
                    await place
                except BaseException:  # closed while waiting: leave the line (or the lock)
                    place.cancel()
                    await asyncio.gather(place, return_exceptions=True)
                    raise
            else:
                await held.enter_async_context(self._locks.hold(platform, key, delivery.go_on))
            stream = await held.enter_async_context(contextlib.aclosing(turn))
            now = time.monotonic()
            waited["taken"] = round((now - delivery.taken_at) * 1000, 3)
            waited["slot"] = round((now - asked_slot) * 1000, 3)
            delivery.begin()
            # only now, with a turn slot: typing and status show work that runs, not a queue
            yield Progress("received", progress_message("received", language), language)
            async for event in stream:  # the service's events are the core's: forwarded
                yield self._with_handoff(await self._with_links(event), message)

    async def _with_links(self, event: Outbound) -> Outbound:
        """An answer's citations with their signed source links, minted for this reader
        (the answer was built from collections they may read; the stored turn keeps none)."""
        if not (isinstance(event, FinalAnswer) and event.citations):
            return event
        try:
            linked = await self._links.linked(event.citations, event.language)
        except Exception as exc:  # the key unreadable: the answer goes out without links
            log_failure(logger, "source links not made", exc)
            return event
        return dataclasses.replace(event, citations=linked)

    def _with_handoff(self, event: Outbound, message: InboundMessage) -> Outbound:
        """An answer offers "Ask a person" when people can take over and the asker's
        interface shows the button; a refusal says so."""
        if not (isinstance(event, FinalAnswer) and self._handoff.enabled):
            return event
        if not message.offers_people:
            return event
        if event.message_id is None:
            return event
        text = event.text
        if event.result.outcome == "refused":
            text = f"{text}\n\n{say('handoff:offer', event.language)}"
        return dataclasses.replace(event, text=text, handoff=True)


def _noted(event: Outbound, language: str) -> Outbound:
    """A final reply of a message answered late, with a short note of the delay first."""
    if isinstance(event, FinalAnswer | Reply | ErrorReply):
        return dataclasses.replace(event, text=f"{say('inbox:late', language)}\n\n{event.text}")
    return event
