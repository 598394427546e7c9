"""Messages a client collects instead of receiving: the HTTP API's side of a hand-off.

Slack and Telegram get a staff reply pushed to the chat; a web page cannot be
pushed to. For the `api` platform the outbox's send keeps the message as the
row's result and marks it done (`channel`), and the page reads the done rows of
its conversation (`read`), by id, from whichever worker it asks. Retention
removes them with the rest of the outbox (RETENTION_DAYS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.core.delivery.outbox import Channel
from storage.db import Database
from storage.repositories import handoff as cases
from storage.repositories import inbox as inbox_repo
from storage.repositories import outbox as outbox_repo
from storage.repositories.outbox import Pending


async def _left_for_the_client(row: Pending) -> dict[str, Any]:
    # what a send returns is kept on the row (its payload is dropped once done): the message
    return {"text": str(row.payload.get("text", "")), "back": bool(row.payload.get("back"))}


def channel() -> Channel:
    """The outbox channel of a platform whose clients collect their messages."""
    return Channel(send=_left_for_the_client, gap=lambda chat: 0.0)


@dataclass(frozen=True)
class Kept:
    """An accepted delivery as a retried call finds it."""

    settled: bool  # answered, or given up on: nothing more will be kept
    answer: dict[str, Any] | None  # the answer kept for its caller (None: none kept)


class Mailbox:
    """Reads what was sent to a conversation whose client collects its messages, and
    the answer kept for a call its client may send again (an Idempotency-Key)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def read(
        self, platform: str, conversation_key: str, after: int = 0
    ) -> tuple[list[dict[str, Any]], bool]:
        """(messages after id `after`, oldest first; whether a case is open there)."""
        async with self._db.sessions() as session:
            rows = await outbox_repo.delivered(session, platform, conversation_key, after)
            case = await cases.open_case_in(session, platform, conversation_key)
        messages = [
            {
                "id": row_id,
                "text": str(payload.get("text", "")),
                "back": bool(payload.get("back")),
                "at": when.isoformat(timespec="seconds"),
            }
            for row_id, payload, when in rows
        ]
        return messages, case is not None

    async def kept_answer(self, platform: str, delivery_id: str, key: str) -> Kept | None:
        """The delivery's state and the answer its renderer kept under `key` among what it
        posted (the inbox keeps `posted` when the delivery is done); None: no such delivery."""
        async with self._db.sessions() as session:
            row = await inbox_repo.status_and_posted(session, platform, delivery_id)
        if row is None:
            return None
        status, posted = row
        answers = [ref[key] for ref in posted if isinstance(ref, dict) and key in ref]
        return Kept(settled=status != "claimed", answer=answers[-1] if answers else None)
