"""Settling a turn's ending: stored once, traced once, as its final state says.

The answer (or the stopped answer) is stored with its question; a turn that failed or
whose caller went away keeps its question alone, as unfinished. The stores a cancelled
turn leaves running (its own tasks) are waited for before the process closes (`settle`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.telemetry import TurnTrace
from bot.telemetry.failures import log_failure
from bot.turn.ending import ANSWER_KEPT, QUESTION_KEPT, Ending, Event, State
from graph.events import TurnResult
from storage.db import Database
from storage.memory import AnswerMemory
from storage.repositories import conversations as conv_repo

logger = logging.getLogger(__name__)
CANCELLED_STORE_S = 0.5  # what `settle` gives a store it cancels to roll back and trace


def stored_question(state: dict[str, Any]) -> str:
    """The question as it is kept: masked before the graph ran (the guard's copy is the
    same text); a reply that picked an offered question ("2") is kept as that question,
    which history, hand-off cases and knowledge gaps then read (graph.offered_choice)."""
    if state.get("picked_offer") and state.get("normalized_question"):
        return str(state["normalized_question"])
    return state.get("safe_question") or state.get("question", "")


@dataclass
class TurnRecord:
    """What settling a turn needs: where it is stored and traced, and how far it got."""

    conv_id: int
    trace_id: str
    trace: TurnTrace
    platform: str
    user: str | None  # the asker's pseudonym
    state: dict[str, Any]  # the graph's state as it last handed it over
    result: TurnResult | None = None  # the answer (or stopped answer), once made


def finish_trace(
    trace: TurnTrace,
    platform: str,
    state: dict[str, Any],
    answer: str | None,
    error: str | None,
    timings: Mapping[str, float] | None = None,
) -> None:
    """The trace's metadata: the graph's summary plus what the service counted
    (`timings`: the turn's, with the waits before it; else the graph's steps). A
    turn has one outcome: a trace already finished keeps its own (TurnTrace)."""
    summary = {
        **state.get("trace", {}),
        "decision_path": state.get("decision_path", []),
        "llm_calls": int(state.get("llm_calls", 0)),
        "timings_ms": dict(state.get("timings_ms", {}) if timings is None else timings),
        "blocked": bool(state.get("guard_blocked")),
        "guard": f"blocked:{state['guard_reason']}" if state.get("guard_blocked") else "passed",
        "citations": len(state.get("citations", [])),
        "error": error,
    }
    trace.finish(platform, summary, answer, error)


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
        self,
        conv_id: int,
        state: dict[str, Any],
        result: TurnResult,
        user: str | None,
        collections: Sequence[str] | None = None,
    ) -> int:
        """Store the question (masked) and the answer; the answer's id.

        The asker's pseudonym is kept with the question: several people can share
        a thread, and `stats` counts users without knowing who they are. A turn
        consolidate_memory picked is remembered in the same transaction. The answer
        keeps the collections the turn read (null: all), so a correction re-asks it
        as that audience (bot.core.answering.corrections).
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
                "collections": None if collections is None else sorted(collections),
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
        except Exception as exc:
            log_failure(logger, f"could not store the unfinished turn {trace_id}", exc)

    def trace(self, turn: TurnRecord, ending: Ending) -> None:
        """Finish the turn's trace as its ending says: with the answer kept, else with
        why there is none (the error's type, or `cancelled`)."""
        if ending.state in ANSWER_KEPT and turn.result is not None:
            result = turn.result
            finish_trace(
                turn.trace, turn.platform, turn.state, result.answer, None, result.timings_ms
            )
        else:
            finish_trace(turn.trace, turn.platform, turn.state, None, ending.reason or "cancelled")

    async def ended(self, turn: TurnRecord, ending: Ending) -> None:
        """Settle a turn that ended with its caller listening: traced now; a question to
        keep is stored in a task of its own (a cancellation, the caller gone, ends the
        wait here, not the storing)."""
        self.trace(turn, ending)
        if ending.state in QUESTION_KEPT:
            await asyncio.shield(self.in_background(self._keep_question(turn, ending)))

    async def left(
        self, turn: TurnRecord, ending: Ending, storing: asyncio.Future[int] | None
    ) -> None:
        """Settle a turn whose caller went away (Event.LEFT reported): gone, it is traced
        now (not by a task the process's end may cancel) and its question kept as
        cancelled; its stopped answer still storing, that store's outcome is the turn's.
        One shielded task settles it: a second cancellation (a worker quitting) ends the
        wait here, not the storing."""
        if ending.state is State.LEFT_STORING and storing is not None:
            work = self._stopped_answer_left(turn, ending, storing)
        else:
            self.trace(turn, ending)
            work = self._keep_question(turn, ending)
        await asyncio.shield(self.in_background(work))

    async def _keep_question(self, turn: TurnRecord, ending: Ending) -> None:
        """Store the question as unfinished when the ending keeps it so (once)."""
        if ending.state in QUESTION_KEPT:
            await self.unfinished(turn.conv_id, turn.state, turn.trace_id, ending.reason or "")

    async def _stopped_answer_left(
        self, turn: TurnRecord, ending: Ending, storing: asyncio.Future[int]
    ) -> None:
        """Kept as its stopped answer when that store (still running, shielded) goes
        through, else as unfinished (cancelled, or the store's error); traced once."""
        try:
            event, error = await _store_outcome(storing, turn.trace_id)
        except BaseException:  # this wait cut short (the process closing): still traced
            ending.report(Event.CLOSED)
            self.trace(turn, ending)
            raise
        ending.report(event, error)
        self.trace(turn, ending)
        await self._keep_question(turn, ending)


async def _store_outcome(storing: asyncio.Future[int], trace_id: str) -> tuple[Event, str | None]:
    """What became of a store its caller stopped waiting for (it runs on, shielded):
    stored, cancelled, or failed (with the error's type). Raises when this wait itself
    was cancelled (alone, or with the store: the process is closing)."""
    try:
        await asyncio.shield(storing)
    except asyncio.CancelledError:
        waiting = asyncio.current_task()
        if not storing.cancelled() or (waiting is not None and waiting.cancelling()):
            raise
        return Event.STORE_CANCELLED, None
    except Exception as exc:  # it failed: the turn is stored as unfinished instead
        logger.warning("could not store the stopped answer of turn %s", trace_id, exc_info=True)
        return Event.ERROR, type(exc).__name__
    return Event.STORED, None
