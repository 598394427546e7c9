"""The service that runs one turn: load history, run the graph, store the turn."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import time
import uuid
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

from bot.stoppable import StoppedError, until_stopped
from bot.telemetry import Pseudonyms, Telemetry, TurnTrace
from bot.turn_store import TurnStore
from graph.builder import build_graph
from graph.context import GraphContext
from graph.events import ErrorReply, FinalAnswer, Progress, Token, TurnEvent, TurnResult
from graph.injection import clean_message
from graph.models import warm_chat_model
from graph.nodes.guard import MAX_CHARS
from graph.privacy import mask_sensitive
from graph.replies import progress_message
from storage.db import Database
from storage.memory import AnswerMemory
from storage.repositories import conversations as conv_repo
from storage.search_types import SearchFilters
from textkit.catalog import say

HISTORY_MESSAGES = 6
# a turn as `AnswerService.stream` runs it (the serving core may run it in another process)
TurnStream = Callable[..., AsyncGenerator[TurnEvent, None]]
CITATION_MARK = re.compile(r"\s?\[\d+\]")  # "[2]" after a sentence
logger = logging.getLogger(__name__)


class AnswerService:
    """Runs turns through the graph with history kept in Postgres."""

    def __init__(
        self,
        db: Database,
        context: GraphContext,
        history_messages: int = HISTORY_MESSAGES,
        telemetry: Telemetry | None = None,
        memory: AnswerMemory | None = None,
    ) -> None:
        self._db = db
        # the graph looks answers up through the context; its TurnStore stores new ones
        self._memory = memory
        self._turns = TurnStore(db, memory)
        self._context = dataclasses.replace(context, memory=memory) if memory else context
        self._history = history_messages
        # without one (tests, benchmarks): nothing traced; pseudonyms under an empty key
        self._telemetry = telemetry or Telemetry(Pseudonyms(""))
        self._graph = build_graph()

    def warm(self) -> None:
        """Load what the model client would load in the first turn (blocking: a thread)."""
        warm_chat_model(self._context.llm)

    @property
    def telemetry(self) -> Telemetry:
        """Where turns are traced (inert without Langfuse keys); votes are scored there too."""
        return self._telemetry

    async def ask(
        self,
        question: str,
        conversation: str | None = None,
        user: str | None = None,
        platform: str = "console",
        collections: Sequence[str] | None = None,
    ) -> TurnResult:
        """Answer one message; the turn is stored under (platform, conversation)."""
        result: TurnResult | None = None
        async for event in self.stream(question, conversation, user, platform, collections):
            if isinstance(event, FinalAnswer):
                result = event.result
            elif isinstance(event, ErrorReply):
                raise RuntimeError(event.error)
        assert result is not None
        return result

    async def stream(
        self,
        question: str,
        conversation: str | None = None,
        user: str | None = None,
        platform: str = "console",
        collections: Sequence[str] | None = None,
        language: str | None = None,
        apology_language: str | None = None,
        top_k: int | None = None,
        threshold: float | None = None,
        stop: asyncio.Event | None = None,
        waited_ms: Mapping[str, float] | None = None,
    ) -> AsyncGenerator[TurnEvent, None]:
        """Run a turn as events (graph.events): Progress per node, Token and Reset as the
        graph streams them, then FinalAnswer, or ErrorReply when the graph raised or the
        answer could not be stored (the turn is stored either way, as unfinished when it
        failed, even when the caller stops listening half-way; its trace is finished
        once, with that outcome).

        `language` is the one the user chose (it wins); `apology_language` is the
        caller's guess (message script, platform locale) for an error raised before
        any step has said which language the turn speaks. `top_k` and `threshold`
        (an API caller's) replace SEARCH_TOP_K and the first relevance threshold.
        Setting `stop` (the asker pressed Stop) cancels the graph at once: what was
        streamed so far is the answer, marked stopped (outcome `stopped`).
        `waited_ms` is what the caller waited before the turn (read when the turn
        starts, so a caller may fill it in until then); it is stored with the turn's
        timings beside `history` (loading the conversation) and `first_token` (from
        the graph's start until the first answer text streamed).
        """
        entered = time.perf_counter()
        trace_id = uuid.uuid4().hex
        external = conversation or f"oneshot-{trace_id}"
        # a long message is cut before anything is kept (the guard refuses it as
        # too_long from its received length); then the privacy rule: from here on
        # only the masked text exists
        received_chars = len(question)
        question = mask_sensitive(clean_message(question[: MAX_CHARS + 1]))
        user_ref = self._telemetry.pseudonyms.user(platform, user)
        async with self._db.autocommit() as session:  # one round trip once the conversation exists
            conv_id, rows = await conv_repo.with_history(
                session, platform, external, user, self._history
            )
        history = [{"role": role, "content": content} for role, content in rows]
        start = time.perf_counter()
        marks = {**(waited_ms or {}), "history": round((start - entered) * 1000, 3)}
        trace = self._telemetry.start_turn(trace_id, platform, external, user, question)
        state: dict[str, Any] = {
            "question": question,
            "question_chars": received_chars,
            "reply_language": language,
            "history": history,
            "llm_calls": 0,
            "decision_path": [],
        }
        stored = False
        storing: asyncio.Future[int] | None = None  # the stopped answer's store
        stopped: TurnResult | None = None  # the stopped answer
        failure: str | None = None  # why the turn failed (the graph's or the store's error)
        written = ""  # the answer streamed so far
        # of it, what ends a checked sentence: kept when the asker stops the turn (a clause
        # shown ahead of its sentence was never checked whole)
        settled = ""
        step_language: str | None = None  # the language of the last Progress yielded
        try:
            # "values" hands over the state as the graph's own reducers folded it;
            # "updates" names the node that just ran, for progress.
            steps = self._graph.astream(
                state,
                config={"callbacks": trace.callbacks, "run_name": "graph"},
                context=self._turn_context(collections, user_ref, top_k, threshold),
                stream_mode=["updates", "custom", "values"],
            )
            async for mode, chunk in until_stopped(steps, stop) if stop else steps:
                if mode == "custom":  # Token and Reset, written by the nodes
                    if isinstance(chunk, Token) and "first_token" not in marks:
                        marks["first_token"] = round((time.perf_counter() - start) * 1000, 3)
                    written = written + chunk.text if isinstance(chunk, Token) else ""
                    if not (isinstance(chunk, Token) and chunk.ahead):
                        settled = written
                    yield chunk
                elif mode == "values":
                    state = chunk
                else:
                    for node, update in chunk.items():
                        step_language = (update or {}).get("language") or state.get(
                            "language", "en"
                        )
                        yield Progress(
                            node,
                            progress_message(node, step_language),
                            step_language,
                            tool_calls(state) if node == "tool_executor" else (),
                        )
            result = self._result(state, trace_id, start, marks)
            # traced once stored: a store that fails is the turn's outcome (an error shown)
            result.message_id = await self._turns.answered(conv_id, state, result, user_ref)
            stored = True
            self._finish_trace(trace, platform, state, result.answer, None, result.timings_ms)
            yield FinalAnswer.of(result)
        except StoppedError:
            said = state.get("language") or language or apology_language or "en"
            result = stopped = self._stopped(state, settled, said, trace_id, start, marks)
            # shielded: a caller gone meanwhile does not stop it (`finally` waits for it)
            storing = self._turns.in_background(
                self._turns.answered(conv_id, state, result, user_ref)
            )
            try:
                result.message_id = await asyncio.shield(storing)
            except Exception as exc:  # not kept: the asker is told, as for any failed turn
                logger.warning(
                    "could not store the stopped answer of turn %s", trace_id, exc_info=True
                )
                failure = type(exc).__name__
            else:
                stored = True
                self._finish_trace(trace, platform, state, result.answer, None, result.timings_ms)
                yield FinalAnswer.of(result)
        except Exception as exc:
            logger.exception("turn %s failed", trace_id)
            failure = type(exc).__name__
        finally:
            if not stored and failure is None:  # the caller went away (cancelled, or closed)
                if storing is None:  # traced now, not by a task the process's end may cancel
                    self._finish_trace(trace, platform, state, None, "cancelled")
                # one shielded task settles it: a second cancellation (a worker quitting)
                # ends the wait here, not the storing
                left = self._store_left(stopped, storing, trace, platform, state, conv_id, trace_id)
                await asyncio.shield(self._turns.in_background(left))
        if failure is not None:
            self._finish_trace(trace, platform, state, None, failure)
            # a task: a cancellation (the caller gone) ends the wait here, not the storing
            unfinished = self._turns.unfinished(conv_id, state, trace_id, failure)
            await asyncio.shield(self._turns.in_background(unfinished))
            # in the language of the last step shown (before any: the user's, else the guess)
            said = step_language or language or apology_language or "en"
            yield ErrorReply(say("error", said), said, trace_id, failure)

    async def settle(self, timeout: float) -> bool:
        """Wait, `timeout` seconds at most, for what turns whose callers went away are
        still storing (TurnStore.settle); True when all ended."""
        return await self._turns.settle(timeout)

    @staticmethod
    def _finish_trace(
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

    def _turn_context(
        self,
        collections: Sequence[str] | None,
        asker: str | None,
        top_k: int | None = None,
        threshold: float | None = None,
    ) -> GraphContext:
        # the memory as this asker sees it: an entry they voted unhelpful is not served to them
        context = self._context
        if self._memory is not None:
            context = dataclasses.replace(context, memory=self._memory.for_asker(asker))
        if top_k is not None:
            context = dataclasses.replace(context, top_k=top_k)
        if threshold is not None:  # the first loop's bar; later loops relax it as usual
            steps = [t - context.thresholds[0] for t in context.thresholds]
            thresholds = tuple(max(0.0, threshold + step) for step in steps)
            context = dataclasses.replace(context, thresholds=thresholds)
        if collections is None:
            return context
        allowed = tuple(collections)
        return dataclasses.replace(
            context, collections=allowed, search_filters=SearchFilters(collections=allowed)
        )

    @classmethod
    def _stopped(
        cls,
        state: dict[str, Any],
        written: str,
        language: str,
        trace_id: str,
        start: float,
        marks: dict[str, float],
    ) -> TurnResult:
        """A stopped turn's result: the checked text streamed so far, marked stopped.

        Its citation markers go (their sources were not final); nothing is
        remembered; the state's summary says `stopped` (stored and traced).
        """
        partial = CITATION_MARK.sub("", written).strip()
        marker = say("turn:stopped", language)
        state["answer"] = f"{partial}\n\n{marker}" if partial else marker
        state["language"] = language
        state["citations"], state["forms"] = [], []
        state.pop("memory_entry", None)
        state["trace"] = {**state.get("trace", {}), "outcome": "stopped"}
        state["outcome"] = "stopped"
        return cls._result(state, trace_id, start, marks)

    @staticmethod
    def _result(
        state: dict[str, Any], trace_id: str, start: float, marks: dict[str, float]
    ) -> TurnResult:
        timings = {**marks, **state.get("timings_ms", {})}
        timings["total"] = round((time.perf_counter() - start) * 1000, 3)
        trace = state.get("trace", {})
        return TurnResult(
            answer=state.get("answer", ""),
            language=state.get("language", "en"),
            intent=trace.get("intent"),
            citations=state.get("citations", []),
            forms=state.get("forms", []),
            decision_path=state.get("decision_path", []),
            retrieval_loops=int(trace.get("retrieval_loops", 0)),
            llm_calls=int(state.get("llm_calls", 0)),
            trace_id=trace_id,
            timings_ms=timings,
            prompt_versions=trace.get("prompt_versions", {}),
            blocked=bool(state.get("guard_blocked")),
            outcome=state.get("outcome", "refused"),
            query=trace.get("query", {}),
        )

    async def export_form_file(self, name: str, collections: Sequence[str] | None = None) -> Any:
        """The stored file of a form a turn offered (`forms[i]["send_file"]`), or None."""
        if self._context.forms is None:
            return None
        return await self._context.forms.export(name, collections)

    async def _store_left(
        self,
        stopped: TurnResult | None,
        storing: asyncio.Future[int] | None,
        trace: TurnTrace,
        platform: str,
        state: dict[str, Any],
        conv_id: int,
        trace_id: str,
    ) -> None:
        """Kept as its stopped answer when that store (still running, shielded) goes
        through, else as unfinished (cancelled, or the store's error); traced once."""
        kept: TurnResult | None = None  # the stopped answer, once its store went through
        failed = "cancelled"
        try:
            if stopped is not None and storing is not None:
                outcome = await _store_outcome(storing, trace_id)
                kept, failed = (stopped, failed) if outcome is None else (None, outcome)
        finally:  # a wait cut short (the process ending) still closes the trace
            if kept is not None:
                self._finish_trace(trace, platform, state, kept.answer, None, kept.timings_ms)
            else:
                self._finish_trace(trace, platform, state, None, failed)
        if kept is None:
            await self._turns.unfinished(conv_id, state, trace_id, failed)


async def _store_outcome(storing: asyncio.Future[int], trace_id: str) -> str | None:
    """None when a store its caller stopped waiting for (it runs on, shielded) went
    through; else why not ("cancelled", or the error's type)."""
    try:
        await asyncio.shield(storing)
    except asyncio.CancelledError:
        waiting = asyncio.current_task()
        # this wait was cancelled (alone, or with the store: the process is closing)
        if not storing.cancelled() or (waiting is not None and waiting.cancelling()):
            raise
        return "cancelled"
    except Exception as exc:  # it failed: the turn is stored as unfinished instead
        logger.warning("could not store the stopped answer of turn %s", trace_id, exc_info=True)
        return type(exc).__name__
    return None


def tool_calls(state: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """The tools the executor runs on `state` (the plan's, the search with this loop's query)."""
    query = state.get("retrieval", {}).get("query")
    calls = []
    for call in state.get("plan", {}).get("tool_calls", []):
        args = dict(call.get("args", {}))
        if call.get("name") == "retrieve_documents" and query:
            args["query"] = query
        calls.append({"name": call.get("name"), "args": args})
    return tuple(calls)
