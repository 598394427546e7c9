"""Open questions asked again when the knowledge base grows: after an upload or a sync.

When an upload (chat, console, HTTP API) or a source's sync adds or changes
documents, the `ragbot gaps` topics those documents match are found (a topic
matches when the first search of one of its questions, as its asker could read,
finds one of the new documents) and every open question of those topics (refused
turns and hand-off cases of the last REASK_DAYS days) is asked again through the
normal answering path, as its asker's audience, in a conversation of its own
(platform `gap_reask`: never a gap itself), without the answer memory (a re-ask
neither is served a remembered answer nor leaves one for people to be served).
What each re-ask found is recorded (`gap_reasks`): `ragbot gaps` marks what is
answered now, and it is not asked again.

Each asker whose question is answered now is offered the answer in the chat they
asked in (`offer_new_answers`, through bot.core.answering.new_answers: the message
corrections send, kind "answered").
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.core.admin import gaps as gap_topics
from bot.core.answering import new_answers
from bot.core.answering.new_answers import AskedTurn, AskerRenderer, offer_new_answer
from graph.events import TurnResult
from storage.db import Database
from storage.embeddings import Embedder
from storage.repositories import gap_reasks as gap_repo
from storage.upload_policy import DEFAULT_COLLECTION

if TYPE_CHECKING:  # built by the runtime when a job needs it
    from bot.turn.service import AnswerService

logger = logging.getLogger(__name__)
REASK_DAYS = 30  # as far back as `ragbot gaps` looks by default
MAX_OPEN = 200  # open questions looked at per upload or sync (newest first)
ANSWERED = frozenset({"answered", "forms", "memory"})  # turn outcomes that answer
# a question with no record of what its asker could read: asked as the least audience
LEAST_AUDIENCE = (DEFAULT_COLLECTION,)
# (platform, the collections a turn read (None: all), recorded) -> what its asker reads now
ReadableNow = Callable[[str, Sequence[str] | None, bool], Sequence[str] | None]


@dataclass(frozen=True)
class NowAnswered:
    """An open question a re-ask answered: whose it was, and the new turn's answer."""

    platform: str
    conversation: str | None
    asker: str | None
    question: str
    language: str | None
    trace_id: str | None  # the refused turn (None for a case opened without one)
    case_id: int | None
    # the refused answer as stored (None: a case opened without one)
    refused_answer_id: int | None
    conversation_id: int | None
    person: str | None  # the conversation's owner: whom an offer reaches
    refused_answer: str | None
    asked_at: datetime
    new: TurnResult  # the re-asked turn that answers it now


@dataclass
class Reasked:
    """What asking a topic's open questions again found."""

    asked: int = 0
    answered: list[NowAnswered] = field(default_factory=list)

    def as_json(self) -> dict[str, int]:
        """The counts, as a sync's result records them."""
        return {"asked": self.asked, "answered": len(self.answered)}


def asked_turn(found: NowAnswered) -> AskedTurn | None:
    """The refused turn as an offer of its new answer needs it (None: a case opened
    without a refused answer, or a conversation with no owner to tell)."""
    if found.refused_answer_id is None or found.conversation_id is None or not found.person:
        return None
    return AskedTurn(
        answer_id=found.refused_answer_id,
        conversation_id=found.conversation_id,
        platform=found.platform,
        conversation_key=found.conversation or "",
        person=new_answers.person_of(found.platform, found.person, found.conversation or ""),
        language=found.language or "en",
        question=found.question,
        answer=found.refused_answer or "",
        asked_at=found.asked_at,
    )


def cited_titles(turn: TurnResult) -> str:
    """The documents a new answer cites, named as a correction's record names its one."""
    return ", ".join(sorted({str(c.get("document")) for c in turn.citations}))[:200]


class GapReasker:
    """Finds the open questions new documents match and asks them again."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        answers: Callable[[], AnswerService],
        renderers: Mapping[str, AskerRenderer] | None = None,
        timezone: str = "UTC",
        readable_now: ReadableNow | None = None,
    ) -> None:
        self._db = db
        # what an asker reads now, of what their turn read (Corrections.readable_now):
        # a collection the settings no longer give their platform is not read for them
        self._readable_now = readable_now
        self._embedder = embedder
        self._renderers = renderers or {}  # how each platform reaches an asker
        self._timezone = timezone
        self._answers = answers  # built on first use: `ragbot worker` answers nothing else
        self._service: AnswerService | None = None

    async def reask(
        self, titles: Sequence[str], *, upload_id: int | None = None, source_id: int | None = None
    ) -> Reasked:
        """Ask again the open questions of the gap topics the documents `titles` match."""
        if not titles:
            return Reasked()
        since = datetime.now(UTC) - timedelta(days=REASK_DAYS)
        async with self._db.sessions() as session:
            items = await gap_repo.open_questions(session, since, MAX_OPEN)
            everything = await gap_repo.collections_of(session, titles)
        if not items:
            return Reasked()
        texts = [" ".join(str(i["question"]).split()) or "?" for i in items]
        vectors = await asyncio.to_thread(self._embedder.model.embed_documents, texts)
        labels = gap_topics.cluster(vectors)
        if self._service is None:  # a re-ask is no one's question: the memory stays out
            self._service = self._answers().without_memory()
        answers, new = self._service, set(titles)
        matching: set[int] = set()
        for item, label in zip(items, labels, strict=True):
            readable = self._readable(item, everything)
            if label not in matching and readable:
                found = await answers.found_documents(str(item["question"]), readable)
                if new & set(found):
                    matching.add(label)
        chosen = [i for i, label in zip(items, labels, strict=True) if label in matching]
        done = Reasked(asked=len(chosen))
        rows = []
        for item in chosen:
            turn = await answers.ask(
                str(item["question"]),
                conversation=f"reask:{uuid.uuid4().hex}",  # alone: no history of its own
                platform=gap_repo.REASK_PLATFORM,
                collections=self._readable(item, everything),
            )
            answered = turn.outcome in ANSWERED
            rows.append(
                {
                    **{k: item[k] for k in ("trace_id", "case_id", "platform", "conversation")},
                    **{k: item[k] for k in ("asker", "question", "language")},
                    "answered": answered,
                    "answer_trace_id": turn.trace_id,
                    "answer_message_id": turn.message_id,
                    "upload_id": upload_id,
                    "source_id": source_id,
                }
            )
            if answered:
                done.answered.append(_now_answered(item, turn))
        async with self._db.transaction() as session:
            await gap_repo.record(session, rows)
        await self.offer_new_answers(done.answered)
        return done

    async def offer_new_answers(self, answered: Sequence[NowAnswered]) -> None:
        """Offer each asker the answer their question has now, in the chat they asked in
        (`offer_new_answer`, kind "answered": once, at most one a day per person, never
        for a deleted conversation, only to the conversation's owner); a case opened
        without a refused answer has no answer to offer against."""
        if not self._renderers:
            return  # offers turned off (CORRECTIONS_ENABLED=false), or no platform to reach
        for found in answered:
            turn = asked_turn(found)
            if turn is None:
                continue
            if not self._is_owner(found):  # someone else's question in a shared conversation
                logger.info("open question now answered: not its conversation owner's question")
                continue
            status = await offer_new_answer(
                self._db,
                self._renderers,
                turn,
                found.new,
                change=f"gap:{found.new.trace_id}",
                document=cited_titles(found.new),
                kind=new_answers.ANSWERED,
                timezone=self._timezone,
            )
            logger.info("open question now answered: offer to its asker %s", status)

    def _readable(self, item: dict[str, Any], everything: Sequence[str]) -> list[str]:
        """The collections the question's asker reads (all of the new documents' for an
        asker who reads everything): what the refused answer kept, less what the
        settings no longer give anyone on its platform."""
        details = item.get("details") or {}
        for kept in (details, details.get("trace") or {}):  # the answer's own, or its trace's
            if "collections" in kept:
                collections = kept["collections"]
                if self._readable_now is not None:
                    collections = self._readable_now(str(item["platform"]), collections, True)
                return list(everything) if collections is None else list(collections)
        return list(LEAST_AUDIENCE)

    def _is_owner(self, found: NowAnswered) -> bool:
        """The question was asked by its conversation's owner, the one person an offer in
        that conversation reaches (in a group or a shared thread, others ask there too).
        A case keeps its asker's platform id; a turn, the asker's pseudonym."""
        if found.case_id is not None:
            return found.asker == found.person
        mine = self._answers().telemetry.pseudonyms.user(found.platform, found.person)
        return found.asker is None or found.asker == mine


def _now_answered(item: dict[str, Any], turn: TurnResult) -> NowAnswered:
    """The open question `item` with the re-asked turn that answered it."""
    return NowAnswered(
        platform=str(item["platform"]),
        conversation=item["conversation"],
        asker=item["asker"],
        question=str(item["question"]),
        language=item["language"],
        trace_id=item["trace_id"],
        case_id=item["case_id"],
        refused_answer_id=item["answer_id"],
        conversation_id=item["conversation_id"],
        person=item["person"],
        refused_answer=item["answer"],
        asked_at=item["at"],
        new=turn,
    )
