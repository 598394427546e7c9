"""The staff inbox in the browser: a staff room with no chat platform (HANDOFF_WEB_INBOX).

A site with only the web chat has no Slack channel or Telegram group for its
staff; the staff page (`/staff`, admin API keys) is its staff room instead.
Its "card" is the case itself: the page lists every case not closed, with the
question, the bot's reply and the messages relayed since, and its replies and
Close go through the hand-off desk as a reply in a card's thread and the
card's Close do, so the asker gets them exactly as from any other room.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.core.admin.audit import Actor, AuditLog
from bot.core.handoff.desk import RELAY_CHARS, HandoffDesk
from bot.settings import WEB_INBOX
from storage.db import Database
from storage.repositories import staff_inbox as inbox_repo

SHOWN_CASES = 100  # on the page at once: the oldest first, the rest after these close


@dataclass(frozen=True)
class Staffer:
    """Who acts on the staff page: an admin API key's name (the audit names it)."""

    name: str

    @property
    def actor(self) -> Actor:
        """The audit's actor: staff on the web staff room, an admin by their key."""
        return Actor(WEB_INBOX, self.name, True)

    @property
    def author(self) -> str:
        """How a case names them (claimed by, closed by, a message's author)."""
        return f"{WEB_INBOX}:{self.name}"


class StaffInbox:
    """Lists the waiting cases and relays the staff page's replies and closes."""

    def __init__(self, db: Database, desk: HandoffDesk, log: AuditLog) -> None:
        self._db = db
        self._desk = desk
        self._log = log

    @property
    def enabled(self) -> bool:
        """True when the staff page is a staff room (HANDOFF_WEB_INBOX)."""
        return WEB_INBOX in self._desk.rooms.ids

    async def cases(self) -> list[dict[str, Any]]:
        """The cases not closed, oldest first, each with its `messages` (to and from the
        asker) so far."""
        async with self._db.sessions() as session:
            waiting = await inbox_repo.waiting_cases(session, SHOWN_CASES)
            talk = await inbox_repo.messages_of(session, [c["id"] for c in waiting])
        by_case: dict[int, list[dict[str, Any]]] = {c["id"]: [] for c in waiting}
        for message in talk:
            by_case[message["case_id"]].append(message)
        return [{**case, "messages": by_case[case["id"]]} for case in waiting]

    async def reply(self, case_id: int, staffer: Staffer, text: str, request_id: str) -> str:
        """Send `text` to the case's asker: "ok", "ignored" (closed, or nothing said) or
        "repeated" (this `request_id` was sent already: a page that tried again)."""
        said = text.strip()[:RELAY_CHARS]
        source = f"{WEB_INBOX}:{staffer.name}:{request_id}"
        result = await self._desk.relay_reply(case_id, WEB_INBOX, staffer.author, said, source)
        if result is None:
            return "repeated"
        await self._log.audit(staffer.actor, "handoff:reply", f"case {case_id}", result)
        return result

    async def close(self, case_id: int, staffer: Staffer) -> bool:
        """Close the case (the asker is told the bot answers again); False when it was not
        open."""
        return await self._desk.close_case(case_id, staffer.actor, staffer.author)
