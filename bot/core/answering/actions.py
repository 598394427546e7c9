"""Answers already given: people vote on them or share one shown privately; where they were."""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any

from bot.core.source_links import SourceLinks
from bot.telemetry import Telemetry
from storage.db import Database
from storage.repositories import conversations as conv_repo
from storage.repositories import feedback as feedback_repo
from storage.repositories import memory as memory_repo

logger = logging.getLogger(__name__)


class AnswerActions:
    """Votes and shares on stored answers."""

    def __init__(self, db: Database, telemetry: Telemetry, links: SourceLinks) -> None:
        self._db = db
        self._telemetry = telemetry
        self._links = links  # a reloaded answer's sources open as a fresh one's do

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
                voter = self._telemetry.pseudonyms.user(platform, user_id)
                await memory_repo.vote(session, message_id, trace_id, voter or "", helpful)
        if not found:
            logger.info("vote on answer %s from %s not counted", message_id, platform)
        if found:
            self._telemetry.feedback(trace_id, message_id, platform, user_id, helpful)
        return found

    async def answered_in(self, platform: str, conversation_key: str) -> bool:
        """True when the bot already answered in this conversation (a thread it is part of)."""
        async with self._db.sessions() as session:
            return await conv_repo.find_id(session, platform, conversation_key) is not None

    async def shown_privately(
        self, platform: str, conversation_key: str, message_id: int
    ) -> dict[str, Any] | None:
        """An answer given in `conversation_key` (the presser's own private one, as the
        adapter built it): text, language, citations; None when it was not given there."""
        async with self._db.sessions() as session:
            answer = await conv_repo.answer_in(session, message_id, platform, conversation_key)
        if answer is None:
            return None
        return {
            "text": answer.content,
            "language": answer.language or "en",
            "citations": list(answer.citations or []),
        }

    async def history(
        self, platform: str, conversation_key: str, limit: int, readable: Collection[str]
    ) -> list[dict[str, Any]] | None:
        """The last `limit` questions and answers of one conversation, oldest first: role,
        text, language, citations and (an answer's) id and outcome; None when there is no
        such conversation. The caller has checked the conversation is the reader's own;
        a citation links its source only in a collection of `readable` (the reader's now)."""
        async with self._db.sessions() as session:
            rows = await conv_repo.shown_messages(session, platform, conversation_key, limit)
        if rows is None:
            return None
        shown = []
        for row in rows:
            answer = row.role == "assistant"
            details = row.details if isinstance(row.details, dict) else {}
            trace = details.get("trace")
            outcome = trace.get("outcome") if isinstance(trace, dict) else None
            citations = list(row.citations or []) if answer else []
            if citations:
                # stored turns keep no expiring link: minted now, for this reader
                citations = await self._links.linked(citations, row.language or "en", readable)
            shown.append(
                {
                    "role": row.role,
                    "text": row.content,
                    "language": row.language,
                    "citations": citations,
                    "answer_id": row.id if answer else None,
                    "outcome": outcome if answer else None,
                }
            )
        return shown
