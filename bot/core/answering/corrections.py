"""Corrections: when a document changes or goes, the answers that cited it are asked again.

A new version of a document (re-uploaded, replaced, re-ingested by a source's sync)
or its removal defers one `correct_answers` job in the same transaction
(storage.repositories.corrections). The job takes the answered turns of the last
CORRECTION_DAYS that cited the document, asks each question again through the turn
service (the same graph, as the asker's audience now: the collections their turn
read, less any the settings no longer give their platform), and compares the two
answers by their facts (textkit.answer_change: numbers, dates, amounts, yes/no,
links, form ids, or no answer any more), not their words. An asker whose answer
changed in substance is offered the new one (`offer_new_answer`).

Nobody is told who could not read the new version (its collection is not theirs),
and no re-ask is spent on a person already told today. Every turn's outcome is
recorded, so a retried job skips what it settled and `stats` counts them; a re-ask
that failed (the model down) fails the job, whose retry asks it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from bot.core.answering.new_answers import (
    UNREACHABLE,
    AskedTurn,
    AskerRenderer,
    offer_new_answer,
)
from bot.core.audiences import Audiences
from bot.settings import API_PLATFORM, Settings
from bot.turn.service import HISTORY_MESSAGES, AnswerService
from graph.events import ErrorReply, FinalAnswer, TurnResult
from storage.db import Database
from storage.repositories import corrections as corrections_repo
from storage.repositories import documents as docs_repo
from textkit.answer_change import substantive_change

logger = logging.getLogger(__name__)
REASK_PLATFORM = "correction"  # where re-asked turns are stored (never re-asked themselves)
UNREADABLE, FAILED, OFF = "unreadable", "failed", "off"
REFUSED_OUTCOMES = frozenset({"refused", "blocked"})


# a turn whose model gave no reply (down, timed out) and fell back to quoting
MODEL_SILENT = "response_synth:llm_discarded:no_reply"


class CorrectionsFailedError(Exception):
    """Some re-asks of a change failed (the model did not answer): the job is retried."""


class Corrections:
    """Re-asks the answers a changed document cited; tells askers whose answer changed."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        answers: Callable[[], AnswerService],
        renderers: Mapping[str, AskerRenderer],
        wake: Callable[[], None] | None = None,
    ) -> None:
        self._db = db
        self._settings = settings
        self._answers = answers  # built on first use: a queue that only ingests needs none
        self._renderers = renderers
        self._audiences = Audiences(settings)
        self._wake = wake

    async def run(self, change: Mapping[str, Any]) -> dict[str, int]:
        """The job: every recent turn that cited the changed document, re-asked and
        settled; how many ended each way ("sent", "unchanged", "limited", ...)."""
        if not self._settings.corrections_enabled:
            return {OFF: 1}
        title = str(change["title"])
        key = f"doc:{change['document_id']}"
        before = datetime.fromisoformat(str(change["changed_at"]))
        async with self._db.sessions() as session:
            rows, cited = await corrections_repo.cited_turns(
                session, title, before, self._settings.correction_days
            )
            current = await docs_repo.find_by_title(session, title)
        # the new version, if any: its collection is what an asker must be able to read
        collection = current.collection if current is not None else None
        counts: dict[str, int] = {}
        if cited > len(rows):
            logger.warning(
                "%d answers cited %r: only the newest %d are asked again",
                cited,
                title,
                len(rows),
            )
            counts["not_reasked"] = cited - len(rows)
        for row in rows:
            try:
                status = await self._settle(row, key, title, collection)
            except Exception:  # one turn's failure must not hold back the others
                logger.exception("correction of answer %s failed", row["answer_id"])
                status = FAILED
                await self._record(row, key, title, FAILED)
            counts[status] = counts.get(status, 0) + 1
        logger.info("corrections for %r (%s): %s", title, change.get("change"), counts)
        if counts.get(FAILED):  # the job is retried: what it settled is skipped then
            raise CorrectionsFailedError(f"{counts[FAILED]} re-asks for {title!r} failed")
        return counts

    async def _settle(
        self, row: Mapping[str, Any], key: str, title: str, collection: str | None
    ) -> str:
        """Re-ask one turn and tell its asker when the answer changed; the outcome."""
        turn = AskedTurn.of(row)
        async with self._db.sessions() as session:
            if await corrections_repo.settled(session, turn.answer_id, key):
                return "settled"
            told = turn.person is not None and await corrections_repo.told_today(
                session, turn.platform, turn.person
            )
        if not self._is_asker(row):
            return await self._record(row, key, title, UNREACHABLE)
        readable = self.readable_now(turn.platform, row.get("collections"), row["recorded"])
        if collection is not None and readable is not None and collection not in readable:
            return await self._record(row, key, title, UNREADABLE)
        if told:  # one a day: no re-ask spent on someone who would not be told
            return await self._record(row, key, title, corrections_repo.LIMITED)
        new = await self.reask(turn, int(row["question_id"]), readable, key)
        reason = substantive_change(turn.answer, new.answer, new.outcome in REFUSED_OUTCOMES)
        if reason is None:
            return await self._record(row, key, title, corrections_repo.UNCHANGED)
        return await offer_new_answer(
            self._db,
            self._renderers,
            turn,
            new,
            change=key,
            document=title,
            reason=reason,
            timezone=self._settings.handoff_timezone,
            wake=self._wake,
        )

    def _is_asker(self, row: Mapping[str, Any]) -> bool:
        """The turn was asked by the conversation's owner (the one person it can reach):
        their pseudonym is the one the question was stored with."""
        asked_by = row.get("asker")
        if not row.get("user_id"):
            return False
        mine = self._answers().telemetry.pseudonyms.user(str(row["platform"]), row["user_id"])
        return asked_by is None or asked_by == mine

    def readable_now(
        self, platform: str, recorded: Sequence[str] | None, was_recorded: bool
    ) -> tuple[str, ...] | None:
        """The collections a turn's asker reads now (None: all): what the turn read, less
        what the settings no longer give anyone on its platform. A turn stored before its
        collections were kept reads what an unknown sender there would (fail closed)."""
        if not was_recorded:
            return self._audiences.collections(platform, None)
        if platform == API_PLATFORM:  # the caller's key's, as the turn recorded them
            return tuple(recorded or ())
        most = self._settings.collections(platform)
        if most is not None:
            extras = self._settings.channel_collections(platform).values()
            guests = self._settings.guest_collections(platform) or ()
            most = (*most, *guests, *(c for added in extras for c in added))
        if recorded is None:
            return None if most is None else tuple(dict.fromkeys(most))
        return tuple(c for c in recorded if most is None or c in most)

    async def reask(
        self, turn: AskedTurn, question_id: int, collections: Sequence[str] | None, key: str
    ) -> TurnResult:
        """The turn's question asked again now, in its language, after what it followed,
        as an audience reading `collections`; stored apart (REASK_PLATFORM)."""
        async with self._db.sessions() as session:
            history = await corrections_repo.history_before(
                session, turn.conversation_id, question_id, HISTORY_MESSAGES
            )
        result: TurnResult | None = None
        async for event in self._answers().stream(
            turn.question,
            conversation=f"{key}:answer:{turn.answer_id}",
            platform=REASK_PLATFORM,
            collections=collections,
            language=turn.language,
            history=history,
        ):
            if isinstance(event, FinalAnswer):
                result = event.result
            elif isinstance(event, ErrorReply):
                raise RuntimeError(event.error or "the re-ask failed")
        if result is None:
            raise RuntimeError("the re-ask gave no answer")
        if MODEL_SILENT in result.decision_path:
            # the model did not answer: the fallback quotes other sentences than the model
            # wrote, which would read as a changed answer to everyone at once during an
            # outage; failed instead, so the job's retry asks again later
            raise RuntimeError("the model gave no reply to the re-ask")
        return result

    async def _record(self, row: Mapping[str, Any], key: str, title: str, status: str) -> str:
        async with self._db.transaction() as session:
            await corrections_repo.record(session, dict(row), key, title, status)
        return status
