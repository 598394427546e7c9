"""The staff rooms: where hand-off cases are shown, answered and reminded.

One room per platform (HANDOFF_SLACK_CHANNEL, HANDOFF_TELEGRAM_CHAT_ID); each
case has a card in every room and a thread under it. The staff page in the
browser (HANDOFF_WEB_INBOX, `web`) is a room too, with no renderer: it reads
the cases themselves (`bot.core.handoff.staff_inbox`), so nothing is sent to it.
This module enqueues the cards, their edits and the thread's messages in the
outbox (payloads from the platforms' `CaseRenderer`s, which the runtime
registers for both platforms: a worker running one adapter still enqueues the
other's sends, and a worker with that adapter sends them), remembers each
staff-room message once sent (an outbox `after_sent` hook), and reminds the
rooms of cases nobody answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.core.delivery.outbox import OutboxWorker, Pending
from bot.core.handoff.cards import CaseRenderer, card_text, staff_buttons
from bot.core.messages import Button
from bot.settings import WEB_INBOX, Settings
from storage.db import Database
from storage.repositories import handoff as cases
from storage.repositories import outbox as outbox_repo
from textkit.catalog import say

logger = logging.getLogger(__name__)


class StaffRooms:
    """The configured staff rooms and what goes into them."""

    def __init__(self, db: Database, settings: Settings, outbox: OutboxWorker) -> None:
        self._db = db
        self._outbox = outbox
        self.ids = settings.handoff_rooms()  # platform → room id
        self.language = settings.handoff_staff_language
        self.remind_minutes = settings.handoff_remind_minutes
        # where a case's answer may go: what its asker's platform reads (a citizen's case
        # never lands in the employees' collections, nor the reverse)
        self._kb_collections = {
            platform: tuple(settings.collections(platform) or ())
            for platform in ("slack", "telegram")
        }
        self.renderers: dict[str, CaseRenderer] = {}
        self._loop: asyncio.Task[None] | None = None
        outbox.after_sent.append(self._remember_post)

    def register(self, platform: str, renderer: CaseRenderer) -> None:
        """How `platform` shows cards and relays (the runtime and the adapters register)."""
        self.renderers[platform] = renderer

    def collections_for(self, case: dict[str, Any]) -> tuple[str, ...]:
        """The collections a case's answer may be added to: its asker's platform's."""
        return self._kb_collections.get(case["platform"], ())

    def _here(self) -> list[tuple[str, str]]:
        """(platform, room) of the rooms whose renderer is registered."""
        return [(p, room) for p, room in self.ids.items() if p in self.renderers]

    # --- reading ----------------------------------------------------------------------

    async def listens_in(self, platform: str, ref: str) -> bool:
        """True when `ref` ("chat:message") is a case's staff-room message (its thread is
        the bot's to read)."""
        if not self.ids:
            return False
        async with self._db.sessions() as session:
            return await cases.is_post(session, platform, ref)

    async def card_ref(self, case_id: int, platform: str) -> str | None:
        """The case card's "chat:message" on `platform` once posted (adapters thread under
        it); None while it waits to be sent; "" when the outbox gave up on it (what
        belongs under it can never be placed)."""
        async with self._db.sessions() as session:
            ref = await cases.card_ref(session, case_id, platform)
            if ref is None and await cases.card_failed(session, case_id, platform):
                return ""
        return ref

    # --- writing (in the caller's transaction) --------------------------------------------

    async def post_cards(self, session: AsyncSession, case: dict[str, Any]) -> None:
        """A new case's card in every room."""
        text, buttons = self._card(case)
        for platform, room in self._here():
            payload = self.renderers[platform].card(room, case["id"], text, buttons)
            payload["case_post"] = {"case": case["id"], "card": True}
            key = f"handoff:{case['id']}:card:{platform}"
            await outbox_repo.enqueue(session, platform, room, key, payload)

    async def edit_cards(self, session: AsyncSession, case: dict[str, Any], step: str = "") -> None:
        """The case's cards shown anew (claimed, closed, added to the knowledge base)."""
        text, buttons = self._card(case)
        for platform, room in self._here():
            payload = self.renderers[platform].card_edit(room, case["id"], text, buttons)
            # a card that could not be edited is posted anew: its replies must still count
            payload["case_post"] = {"case": case["id"], "card": True}
            key = f"handoff:{case['id']}:card:{platform}:{step or case['status']}"
            await outbox_repo.enqueue(session, platform, room, key, payload)

    def _card(self, case: dict[str, Any]) -> tuple[str, list[Button]]:
        collections = self.collections_for(case)
        buttons = staff_buttons(case, collections, self.language)
        return card_text(case, self.language, collections), buttons

    async def into_threads(
        self,
        session: AsyncSession,
        case_id: int,
        text: str,
        key: str,
        *,
        answerable: bool,
        only: str | None = None,
    ) -> None:
        """A message under the case's card in every room (`key`: once per room; `only`:
        that platform's room alone); `answerable`: a staff reply to it reaches the case."""
        for platform, room in self._here():
            if only is not None and platform != only:
                continue
            payload = self.renderers[platform].in_thread(room, case_id, text)
            if answerable:
                payload["case_post"] = {"case": case_id, "card": False}
            await outbox_repo.enqueue(session, platform, room, f"{key}:{platform}", payload)

    async def to_asker(
        self,
        session: AsyncSession,
        case: dict[str, Any],
        text: str,
        key: str,
        buttons: Sequence[Button] = (),
    ) -> None:
        """A message in the asker's conversation, on their platform."""
        renderer = self.renderers.get(case["platform"])
        if renderer is None:  # the runtime registers both platforms: only a test's setup
            raise RuntimeError(f"no {case['platform']} case renderer registered")
        chat, payload = renderer.to_asker(case["route"], text, buttons)
        await outbox_repo.enqueue(session, case["platform"], chat, key, payload)

    def wake(self) -> None:
        """Send what the caller's transaction enqueued, now."""
        self._outbox.wake()

    # --- reminders and the outbox hook --------------------------------------------------

    async def remind_due(self) -> int:
        """Remind the rooms of cases waiting HANDOFF_REMIND_MINUTES without a reply."""
        if not self.ids:
            return 0
        async with self._db.transaction() as session:
            due = await cases.take_reminders(session, self.remind_minutes)
            for case in due:
                waited = self.remind_minutes * case["reminders"]
                text = say("staff:remind", self.language, case=case["id"], minutes=f"{waited:g}")
                key = f"handoff:{case['id']}:remind:{case['reminders']}"
                await self.into_threads(session, case["id"], text, key, answerable=False)
        if due:
            self.wake()
        return len(due)

    def open(self, anyone_in_room: bool = False) -> None:
        """Start reminding (a few times per reminder period, at most once a minute)."""
        chat_rooms = {p: r for p, r in self.ids.items() if p != WEB_INBOX}  # the page: admins
        if chat_rooms and anyone_in_room:
            logger.warning(
                "HANDOFF_STAFF_USER_IDS is unset: anyone in the staff rooms (%s) may answer"
                " and close cases; only admins may add answers to the knowledge base",
                ", ".join(f"{p} {r}" for p, r in chat_rooms.items()),
            )
        if self.ids and self._loop is None:
            self._loop = asyncio.create_task(self._remind_loop(), name="handoff reminders")

    async def close(self) -> None:
        """Stop reminding."""
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
            self._loop = None

    async def _remind_loop(self) -> None:
        every = min(60.0, max(1.0, self.remind_minutes * 60 / 4))
        while True:
            await asyncio.sleep(every)
            try:
                await self.remind_due()
            except Exception as exc:  # a database blip: the next round reminds
                logger.warning("hand-off reminders failed: %s", type(exc).__name__)

    async def _remember_post(
        self, session: AsyncSession, row: Pending, result: dict[str, Any] | None
    ) -> None:
        marker = row.payload.get("case_post")
        sent = (result or {}).get("ts") or (result or {}).get("message_id")
        if isinstance(marker, dict) and sent:
            ref = f"{row.chat}:{sent}"
            await cases.record_post(
                session, row.platform, ref, int(marker["case"]), bool(marker.get("card"))
            )
