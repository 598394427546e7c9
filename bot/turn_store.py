"""Storing a turn: its question and answer, or its question alone when it did not finish."""

from __future__ import annotations

import logging
from typing import Any

from graph.events import TurnResult
from storage.db import Database
from storage.memory import AnswerMemory
from storage.repositories import conversations as conv_repo

logger = logging.getLogger(__name__)


def stored_question(state: dict[str, Any]) -> str:
    """The question as it is kept: masked before the graph ran (the guard's copy is the
    same text)."""
    return state.get("safe_question") or state.get("question", "")


class TurnStore:
    """Writes turns to the conversation history, each in its own transaction."""

    def __init__(self, db: Database, memory: AnswerMemory | None = None) -> None:
        self._db = db
        self._memory = memory

    async def answered(
        self, conv_id: int, state: dict[str, Any], result: TurnResult, user: str | None
    ) -> int:
        """Store the question (masked) and the answer; the answer's id.

        The asker's pseudonym is kept with the question: several people can share
        a thread, and `stats` counts users without knowing who they are. A turn
        consolidate_memory picked is remembered in the same transaction.
        """
        remember = None
        if self._memory is not None and state.get("memory_entry"):
            remember = await self._memory.prepare(state["memory_entry"], result.trace_id)
        question = {
            "content": stored_question(state),
            "language": result.language,
            "trace_id": result.trace_id,
            "blocked": result.blocked,
            "details": {"user": user},
        }
        answer = {
            "content": result.answer,
            "language": result.language,
            "intent": result.intent,
            "citations": result.citations,
            "trace_id": result.trace_id,
            "blocked": result.blocked,
            "details": {
                "history": len(state.get("history", [])),  # what the turn could see
                "decision_path": result.decision_path,
                "timings_ms": result.timings_ms,
                "llm_calls": result.llm_calls,
                "trace": state.get("trace", {}),
            },
        }
        # in a transaction though it is one statement without the memory: a turn cancelled
        # while storing (a drain, a caller gone) rolls back, and is then stored as cancelled
        # once, not twice (an autocommit INSERT can commit after the cancellation); a COMMIT
        # that lands after the cancellation is covered by the question's unique index
        async with self._db.transaction() as session:
            answer_id = await conv_repo.add_turn(session, conv_id, question, answer)
            if remember is not None:
                await AnswerMemory.store(session, remember)
            return answer_id

    async def unfinished(
        self, conv_id: int, state: dict[str, Any], trace_id: str, error: str
    ) -> None:
        """Store the question of a turn that did not finish (kept out of later history),
        unless the turn's question got stored after all (a cancellation that arrived
        while its answer's COMMIT was on its way, and the COMMIT landed). Never raises:
        the database itself may be why the turn failed."""
        try:
            async with self._db.transaction() as session:
                await conv_repo.add_unfinished_question(
                    session,
                    conv_id,
                    trace_id,
                    stored_question(state),
                    language=state.get("language"),
                    blocked=True,
                    details={"error": error, "decision_path": state.get("decision_path", [])},
                )
        except Exception:
            logger.exception("could not store the unfinished turn %s", trace_id)
