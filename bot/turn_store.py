"""Storing a turn: its question and answer, or its question alone when it did not finish;
and the stores a cancelled turn leaves running, waited for before the process closes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from graph.events import TurnResult
from storage.db import Database
from storage.memory import AnswerMemory
from storage.repositories import conversations as conv_repo

logger = logging.getLogger(__name__)
CANCELLED_STORE_S = 0.5  # what `settle` gives a store it cancels to roll back and trace


def stored_question(state: dict[str, Any]) -> str:
    """The question as it is kept: masked before the graph ran (the guard's copy is the
    same text)."""
    return state.get("safe_question") or state.get("question", "")


class TurnStore:
    """Writes turns to the conversation history, each in its own transaction."""

    def __init__(self, db: Database, memory: AnswerMemory | None = None) -> None:
        self._db = db
        self._memory = memory
        # the stores a cancelled turn leaves running (shielded): `settle` waits for them
        self._running: set[asyncio.Future[Any]] = set()

    @property
    def pending(self) -> int:
        """How many stores run on their own (`in_background`) and have not ended."""
        return len(self._running)

    def in_background(self, work: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
        """`work` (a store, or what decides one) as a task of its own, kept for `settle`
        until it ends: a turn's caller may stop waiting for it, the process may not."""
        task = asyncio.ensure_future(work)
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return task

    async def settle(self, timeout: float) -> bool:
        """Wait, `timeout` seconds at most, for the stores running in the background,
        those begun during the wait included; True when all ended. Called before the
        process closes its database: cancelling a turn does not cancel its store, but
        the end of the event loop would. Stores still running then, or when this wait is
        itself cancelled, are cancelled (a settling task closes its turn's trace as
        cancelled) and given CANCELLED_STORE_S to roll back before the database closes."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            while self._running and (left := deadline - loop.time()) > 0:
                await asyncio.wait(set(self._running), timeout=left)
        except BaseException:  # the close itself cut short (a second Ctrl-C): stop them
            for task in set(self._running):
                task.cancel()
            raise
        if not self._running:
            return True
        left_over = set(self._running)
        for task in left_over:
            task.cancel()
        await asyncio.wait(left_over, timeout=CANCELLED_STORE_S)
        return False

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
