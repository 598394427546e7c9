"""Offering an asker a new answer to a question they asked earlier, in the chat they asked in.

`offer_new_answer` is the one way a later, better or corrected answer reaches the
person who asked: after a document they were answered from changed
(bot.core.answering.corrections), or after new knowledge answers a question that was
refused or handed off. It sends ONE short message in the turn's language, through
the outbox (exactly once: keyed by the answer and the change), by the same
per-platform renderers hand-off notices use (`to_asker`), and only:

- while the conversation and the answer are still stored (a deleted conversation, or
  one retention removed, gets nothing);
- when the person was not sent one already today (one a day at most, per person);
- to the person who asked (the conversation's owner), where the renderer knows how
  to reach them (`asker_route`: not a private `/ragbot ask` reply, say).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from bot.core.messages import Button
from bot.settings import API_PLATFORM
from graph.events import TurnResult
from storage.db import Database
from storage.repositories import corrections as corrections_repo
from storage.repositories import outbox as outbox_repo
from textkit.catalog import say

CHANGED, ANSWERED = "changed", "answered"  # the message's kind: a new version, a first answer
SENT, GONE, LIMITED, UNREACHABLE, SETTLED = "sent", "gone", "limited", "unreachable", "settled"
SOURCES_SHOWN = 2  # of a new answer's sources, how many the message names


class AskerRenderer(Protocol):
    """An adapter's way of reaching an asker in their conversation (its case renderer)."""

    def asker_route(self, conversation_key: str) -> dict[str, Any] | None:
        """Where a message in conversation `conversation_key` goes (None: not reachable)."""
        ...

    def to_asker(
        self, route: dict[str, Any], text: str, buttons: Sequence[Button]
    ) -> tuple[str, dict[str, Any]]:
        """(chat, payload): a message in the asker's conversation."""
        ...


@dataclass(frozen=True)
class AskedTurn:
    """An answered turn as it was stored: who asked what, where and when, in which language."""

    answer_id: int
    conversation_id: int
    platform: str
    conversation_key: str
    person: str | None  # whom the one-a-day limit counts: `person_of` the conversation's owner
    language: str
    question: str
    answer: str
    asked_at: datetime

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> AskedTurn:
        """The turn of a row `storage.repositories.corrections` reads."""
        return cls(
            answer_id=int(row["answer_id"]),
            conversation_id=int(row["conversation_id"]),
            platform=str(row["platform"]),
            conversation_key=str(row["external_id"]),
            person=person_of(str(row["platform"]), row["user_id"], str(row["external_id"])),
            language=str(row["language"] or "en"),
            question=str(row["question"] or ""),
            answer=str(row["answer"] or ""),
            asked_at=row["created_at"],
        )

    def row(self) -> dict[str, Any]:
        """The fields `corrections_repo.record` keeps."""
        return {"answer_id": self.answer_id, "platform": self.platform, "user_id": self.person}


def person_of(platform: str, user_id: str | None, conversation_key: str) -> str | None:
    """The person a message to a conversation reaches, as the one-a-day limit counts them:
    its owner's platform id; on the HTTP API the conversation itself (every visitor of a
    website calls with its one key, whose name is every turn's user)."""
    if platform == API_PLATFORM and user_id:
        return conversation_key
    return user_id


def day_of(when: datetime, language: str, timezone: str) -> str:
    """A day as the asker reads it: "3 March" (en), "3月3日" (Chinese)."""
    local = when.astimezone(ZoneInfo(timezone))
    if language.startswith("zh"):
        return f"{local.month}月{local.day}日"
    return f"{local.day} {local:%B}"


def sources_text(citations: Sequence[Mapping[str, Any]], language: str) -> str:
    """The new answer's sources as its answers name them: titles, with links when known."""
    shown: dict[str, str] = {}  # document → as named: its title in the reader's script
    for citation in citations:
        document = str(citation.get("document") or "")
        if document and document not in shown:
            title = str(citation.get("title") or document)
            url = citation.get("url")
            shown[document] = f"{title} ({url})" if url else title
    if not shown:
        return ""
    named = "; ".join(list(shown.values())[:SOURCES_SHOWN])
    return say("correction:source", language, sources=named)


def correction_text(turn: AskedTurn, new: TurnResult, kind: str, timezone: str) -> str:
    """The message: when the earlier answer was given, the new answer and its source."""
    language = turn.language
    return say(
        f"correction:{kind}",
        language,
        date=day_of(turn.asked_at, language, timezone),
        question=turn.question,
        answer=new.answer.strip(),
        source=sources_text(new.citations, language),
    )


async def offer_new_answer(
    db: Database,
    renderers: Mapping[str, AskerRenderer],
    turn: AskedTurn,
    new: TurnResult,
    *,
    change: str,
    document: str,
    reason: str | None = None,
    kind: str = CHANGED,
    timezone: str = "UTC",
    wake: Callable[[], None] | None = None,
) -> str:
    """Tell the person who asked `turn` its new answer `new`, once; what became of it.

    "sent" (queued in the outbox, in this transaction with its record), "limited"
    (told of something else today), "unreachable" (no way to reach them there),
    "gone" (the conversation or the answer was deleted) or "settled" (this `change`
    was already handled for this answer). `change` names what prompted it (a changed
    document's version, a gap's re-ask); with the answer it keys the send, so a retry
    never sends twice. `document`: the title it is about (kept with the record);
    `reason`: what differed; `kind`: "changed" or "answered" (the first answer to a
    question that was refused or handed off).
    """
    renderer = renderers.get(turn.platform)
    route = None
    if renderer is not None and turn.person:
        route = renderer.asker_route(turn.conversation_key)
    async with db.transaction() as session:
        if not await corrections_repo.conversation_exists(
            session, turn.conversation_id, turn.answer_id
        ):
            return GONE
        if await corrections_repo.settled(session, turn.answer_id, change):
            return SETTLED
        status = SENT
        if renderer is None or route is None or not turn.person:
            status = UNREACHABLE
        elif await corrections_repo.told_today(session, turn.platform, turn.person):
            status = LIMITED
        else:
            text = correction_text(turn, new, kind, timezone)
            chat, payload = renderer.to_asker(route, text, ())
            key = f"correction:{turn.answer_id}:{change}"
            await outbox_repo.enqueue(session, turn.platform, chat, key, payload, new.trace_id)
        await corrections_repo.record(session, turn.row(), change, document, status, reason)
    if status == SENT and wake is not None:
        wake()
    return status
