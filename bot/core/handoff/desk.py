"""The hand-off desk: a question becomes a case that people answer, in the chat it came from.

"Ask a person" under an answer opens a case (one per conversation while it is
open): a card in each staff room (HANDOFF_SLACK_CHANNEL, HANDOFF_TELEGRAM_CHAT_ID)
with Claim and Close, or a row on the staff page in the browser (HANDOFF_WEB_INBOX,
`bot.core.handoff.staff_inbox`), and a notice to the asker saying a person
replies here and roughly when. While the case is open the asker's messages in that
conversation go to the card's thread (the bot stays quiet) and staff replies
there go to the asker, marked as from a person; `/bot` or "Back to the bot"
hands the chat back, as does Close. A closed case offers "Add to knowledge
base": its question and the staff answer become an FAQ document through the
ordinary upload path (policy, personal-data screen, audit).

Everything is in Postgres (cases, the staff-room messages of each, relayed
messages keyed by their inbound delivery) and every send goes through the
outbox with a key: any number of workers relay each message once. What goes
into the staff rooms (cards, threads, reminders) is `bot.core.handoff.staff_rooms`';
platform details are the adapters' (`CaseRenderer`): this module never sees a
payload's insides.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.core.admin.audit import Actor, AuditLog
from bot.core.admin.knowledge import Knowledge
from bot.core.audiences import Audiences
from bot.core.delivery.outbox import OutboxWorker, Pending
from bot.core.handoff.cards import back_button, opened_notice, passages_of
from bot.core.handoff.knowledge import CaseKnowledge
from bot.core.handoff.office_hours import OfficeHours
from bot.core.handoff.staff_rooms import StaffRooms
from bot.core.messages import Audience, InboundMessage, Reply
from bot.settings import WEB_INBOX, Settings
from graph.privacy import mask_sensitive
from graph.replies import contact_for
from storage.db import Database
from storage.repositories import handoff as cases
from textkit.catalog import say

logger = logging.getLogger(__name__)
RELAY_CHARS = 3500  # of one relayed message: within Telegram's 4,096 after its markup


def _capped(text: str) -> str:
    return text if len(text) <= RELAY_CHARS else text[: RELAY_CHARS - 1] + "…"


class HandoffDesk:
    """Opens, relays, claims and closes hand-off cases; off without a staff room."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        log: AuditLog,
        knowledge: Knowledge,
        audiences: Audiences,
        outbox: OutboxWorker,
    ) -> None:
        self._db = db
        self._log = log
        self._audiences = audiences
        self.rooms = StaffRooms(db, settings, outbox)
        self._staff = settings.handoff_staff()
        self._hours = OfficeHours.parse(settings.handoff_office_hours, settings.handoff_timezone)
        self._lang = self.rooms.language
        self._contacts = settings.handoff_contacts()
        self._knowledge = CaseKnowledge(db, log, knowledge, self.rooms)
        outbox.after_failed.append(self._card_failed)

    @property
    def enabled(self) -> bool:
        """True when a staff room is configured."""
        return bool(self.rooms.ids)

    def is_staff(self, platform: str, user_id: str, audience: Audience, in_room: bool) -> bool:
        """Listed in HANDOFF_STAFF_USER_IDS (or an admin); with no list, anyone acting from
        inside the staff room except a guest."""
        if self.may_publish(platform, user_id, audience):
            return True
        guest = platform == "slack" and audience.guest
        return not self._staff and in_room and not guest

    def may_publish(self, platform: str, user_id: str, audience: Audience) -> bool:
        """Adding to the knowledge base takes listed staff or an admin: a room's member
        (staff by membership alone) may answer and close, not publish."""
        if f"{platform}:{user_id}" in self._staff or user_id in self._staff:
            return True
        return self._audiences.is_admin(platform, user_id, audience)

    # --- where messages go ----------------------------------------------------------

    async def is_staff_reply(self, session: AsyncSession, message: InboundMessage) -> bool:
        """True when `message` answers a case's staff-room message (in the caller's
        transaction): staff at work are not rate limited like askers."""
        if not message.reply_to or not self.could_be_staff_reply(message):
            return False
        return await cases.is_post(session, message.platform, message.reply_to)

    def could_be_staff_reply(self, message: InboundMessage) -> bool:
        """Whether `message` may answer a case's staff-room message (then a read of the
        cases decides): a reply, by staff, with the desk open."""
        if not self.enabled or not message.reply_to:
            return False
        return self.is_staff(message.platform, message.user_id, message.audience, True)

    async def route(self, message: InboundMessage, language: str) -> list[Reply] | None:
        """The desk's handling of a message, or None when it is the bot's to answer.

        A reply under a case card is staff talking to the asker; a message in a
        conversation with an open case goes to the staff; `bot` hands a chat back.
        """
        if not self.enabled:
            return None
        async with self._db.sessions() as session:
            staff_case = (
                await cases.case_of_post(session, message.platform, message.reply_to)
                if message.reply_to
                else None
            )
            asker_case = (
                None
                if staff_case or (message.command and message.command != "bot")
                else await self._asker_case(session, message)
            )
        if staff_case is not None:
            await self._from_staff(message, staff_case)
            return []
        if message.command == "bot":
            return await self._hand_back(message, asker_case, language)
        if asker_case is not None and asker_case["asker"] == message.user_id:
            await self._from_asker(message, asker_case)
            return []
        return None  # anyone else in a shared thread or group: the bot answers them

    async def _from_asker(self, message: InboundMessage, case: dict[str, Any]) -> None:
        said = message.text.strip() or ", ".join(a.name for a in message.attachments)
        if not said:
            return
        said = _capped(said)
        text = mask_sensitive(said)  # the privacy rule: only the masked text is kept
        source = f"{message.platform}:{message.delivery_id}"
        async with self._db.transaction() as session:
            current = await cases.get_case(session, case["id"], lock=True)
            if current is None or current["status"] == "closed":  # closed meanwhile
                return
            author = f"{message.platform}:{message.user_id}"
            if not await cases.add_message(
                session, case["id"], "to_staff", message.platform, author, text, source
            ):
                return
            shown = say("staff:from_asker", self._lang, text=text)
            key = f"handoff:{case['id']}:in:{source}"
            await self.rooms.into_threads(session, case["id"], shown, key, answerable=True)
        self.rooms.wake()

    async def _from_staff(self, message: InboundMessage, case: dict[str, Any]) -> None:
        actor = Actor(message.platform, message.user_id, message.is_admin)
        target = f"case {case['id']}"
        if not self.is_staff(message.platform, message.user_id, message.audience, True):
            await self._log.audit(actor, "handoff:reply", target, "refused", "not staff")
            return
        source = f"{message.platform}:{message.delivery_id}"
        said = _capped(message.text.strip())
        result = await self.relay_reply(
            case["id"], message.platform, self._name(message), said, source
        )
        if result is None:
            return  # relayed already (a redelivery)
        await self._log.audit(actor, "handoff:reply", target, result)

    async def relay_reply(
        self, case_id: int, platform: str, author: str, said: str, source: str
    ) -> str | None:
        """A staff member's reply (from the staff room on `platform`) sent to the asker, once
        per `source`: "ok", "ignored" (nothing said, or the case closed: said so in that
        room) or None when `source` was relayed already. The first reply claims the case."""
        async with self._db.transaction() as session:
            # locked: a close cannot slip between this check and the relay
            current = await cases.get_case(session, case_id, lock=True)
            if current is None or current["status"] == "closed" or not said:
                # said so in the thread: a file alone, or a case closed, reaches nobody
                note = say("staff:not_relayed", self._lang, case=case_id)
                key = f"handoff:{case_id}:dropped:{source}"
                await self.rooms.into_threads(
                    session, case_id, note, key, answerable=False, only=platform
                )
                result = "ignored"
            elif await cases.add_message(
                session, current["id"], "to_asker", platform, author, said, source
            ):
                if current["status"] == "open":  # answering is claiming
                    claimed = await cases.claim(session, current["id"], author)
                    if claimed is not None:
                        await self.rooms.edit_cards(session, claimed)
                text = f"{say('handoff:from_person', current['language'])}\n{said}"
                key = f"handoff:{current['id']}:out:{source}"
                await self.rooms.to_asker(session, current, text, key)
                result = "ok"
            else:
                return None
        self.rooms.wake()
        return result

    async def _hand_back(
        self, message: InboundMessage, case: dict[str, Any] | None, language: str
    ) -> list[Reply]:
        """`bot`: the asker's open case here is closed; the bot answers again."""
        if case is None or case["asker"] != message.user_id:
            return [Reply(say("handoff:no_case", language), language, "handoff_none")]
        await self._close(case["id"], Actor(message.platform, message.user_id, False), "asker")
        return []  # the closing notice goes to the chat through the outbox

    @staticmethod
    async def _asker_case(session: AsyncSession, message: InboundMessage) -> dict[str, Any] | None:
        """The open case of this conversation; in a one-to-one chat (and for `bot` anywhere),
        the sender's open case anywhere in that chat (a new Slack DM message is a new
        thread, /new a new key, a command its own conversation): one query either way."""
        if message.direct or message.command == "bot":
            chat = message.conversation_key.split(":", 1)[0]
            return await cases.open_case_in_chat(session, message.platform, chat, message.user_id)
        return await cases.open_case_in(session, message.platform, message.conversation_key)

    # --- opening a case -------------------------------------------------------------

    async def ask(
        self,
        platform: str,
        user_id: str,
        message_id: int,
        where: str,
        route: dict[str, Any],
        language: str,
    ) -> Reply:
        """The "Ask a person" button pressed under answer `message_id` (posted in `where`, as the
        adapter verified): a case, its cards and the asker's notice."""
        actor = Actor(platform, user_id, False)
        async with self._db.sessions() as session:
            context = await cases.answer_context(session, message_id, platform, where)
        if context is None or not self.enabled:
            await self._log.audit(actor, "handoff:open", str(message_id), "refused", "no answer")
            return Reply(say("handoff:gone", language), language, "handoff_gone", {"private": True})
        if context.get("owner") and context["owner"] != user_id:  # someone else's question
            await self._log.audit(actor, "handoff:open", str(message_id), "refused", "not asker")
            text = say("handoff:not_owner", language)
            return Reply(text, language, "not_yours", {"private": True})
        asker_language = context.get("language") or language
        values = {
            "platform": platform,
            "conversation_key": context["conversation_key"],
            "asker": user_id,
            # the conversation too: a reply to a relayed message in a group continues it
            "route": {**route, "conversation": context["conversation_key"]},
            "language": asker_language,
            "question": context.get("question") or "",
            "answer": context.get("answer") or "",
            "outcome": (context.get("trace") or {}).get("outcome"),
            "passages": passages_of(context),
            "answer_message_id": message_id,
        }
        async with self._db.transaction() as session:
            case_id, new = await cases.open_case(session, values)
            if new:
                case = await cases.get_case(session, case_id)
                assert case is not None
                await self.rooms.post_cards(session, case)
                minutes = self.rooms.remind_minutes
                notice = opened_notice(self._hours, minutes, asker_language)
                back = (back_button(case_id, asker_language),)
                await self.rooms.to_asker(session, case, notice, f"handoff:{case_id}:opened", back)
        self.rooms.wake()
        await self._log.audit(actor, "handoff:open", f"case {case_id}", "ok" if new else "open")
        if not new:
            return Reply(say("handoff:already", language), language, "handoff", {"private": True})
        return Reply("", language, "handoff", {"silent": True})

    @staticmethod
    def _name(message: InboundMessage) -> str:
        return f"{message.platform}:{message.user_id}"

    # --- staff buttons --------------------------------------------------------------

    async def act(
        self,
        platform: str,
        user_id: str,
        audience: Audience,
        value: str,
        chat: str | None,
        language: str,
    ) -> Reply:
        """A case button: `<case>:claim|close|back|kb-<collection>`."""
        case_ref, _, verb = value.partition(":")
        actor = Actor(platform, user_id, False)
        async with self._db.sessions() as session:
            case = await cases.get_case(session, int(case_ref)) if case_ref.isdigit() else None
        if case is None:
            return Reply(say("handoff:gone", language), language, "handoff_gone", {"private": True})
        if verb == "back":
            if case["platform"] != platform or case["asker"] != user_id:
                return Reply(say("handoff:not_asker", language), language, "not_yours")
            await self._close(case["id"], actor, "asker")
            return Reply("", language, "handoff", {"silent": True})
        in_room = chat is not None and self.rooms.ids.get(platform) == chat
        target = f"case {case['id']}"
        if not self.is_staff(platform, user_id, audience, in_room):
            await self._log.audit(actor, f"handoff:{verb}", target, "refused", "not staff")
            return Reply(say("handoff:not_staff", language), language, "not_yours")
        by = f"{platform}:{user_id}"
        if verb == "claim":
            async with self._db.transaction() as session:
                claimed = await cases.claim(session, case["id"], by)
                if claimed is not None:
                    await self.rooms.edit_cards(session, claimed)
            self.rooms.wake()
            await self._log.audit(actor, "handoff:claim", target, "ok" if claimed else "late")
            if claimed is None:
                return self._not_open(case)
            return Reply("", language, "handoff", {"silent": True})
        if verb == "close":
            if not await self._close(case["id"], actor, by):
                return self._not_open(case)
            return Reply("", language, "handoff", {"silent": True})
        if verb.startswith("kb-"):
            if not self.may_publish(platform, user_id, audience):
                await self._log.audit(actor, "handoff:kb", target, "refused", "not listed")
                return Reply(say("handoff:not_staff", self._lang), self._lang, "not_yours")
            return await self._knowledge.add(case, actor, verb[3:])
        return Reply(say("handoff:gone", language), language, "handoff_gone", {"private": True})

    def _not_open(self, case: dict[str, Any]) -> Reply:
        text = say("staff:not_open", self._lang, case=case["id"], status=case["status"])
        return Reply(text, self._lang, "handoff", {"private": True})

    async def close_case(self, case_id: int, actor: Actor, by: str) -> bool:
        """Close a case from a staff room without buttons (the staff page); False when it
        was closed already (or never was)."""
        return await self._close(case_id, actor, by)

    async def _close(self, case_id: int, actor: Actor, by: str) -> bool:
        """Close a case: the asker is told the bot answers again; the cards offer the KB."""
        async with self._db.transaction() as session:
            closed = await cases.close(session, case_id, by)
            if closed is not None:
                await self.rooms.edit_cards(session, closed)
                notice = say("handoff:closed", closed["language"])
                await self.rooms.to_asker(session, closed, notice, f"handoff:{case_id}:closed")
        self.rooms.wake()
        await self._log.audit(actor, "handoff:close", f"case {case_id}", "ok" if closed else "late")
        return closed is not None

    async def _card_failed(self, session: AsyncSession, row: Pending, reason: str) -> None:
        """A card could not be posted: when no staff room has or may still get the case,
        it is closed and the asker is sent to HANDOFF_CONTACT rather than left waiting."""
        marker = row.payload.get("case_post")
        if not (isinstance(marker, dict) and marker.get("card")):
            return
        if WEB_INBOX in self.rooms.ids:  # the staff page lists every open case: it is seen
            return
        case_id = int(marker["case"])
        if await cases.cards_pending_or_posted(session, case_id):
            return
        closed = await cases.close(session, case_id, "unreachable")
        if closed is None:
            return
        logger.error("hand-off case %s reached no staff room (%s): closed", case_id, reason)
        language = closed["language"]
        contact = contact_for(language, self._contacts)  # as the refusal names it
        notice = say("handoff:unreachable", language, contact=contact)
        await self.rooms.to_asker(session, closed, notice, f"handoff:{case_id}:unreachable")
