"""The turn's public entry: AnswerService runs one turn as a stream of events.

The stream reports what happens to the turn's ending (bot.turn.ending) and hands the
ending to TurnStore (bot.turn.settling) to be stored and traced once; the graph's run
itself (history, graph, events out) is bot.turn.run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

from bot.telemetry import Pseudonyms, Telemetry
from bot.telemetry.failures import log_failure
from bot.turn.ending import Ending, Event, State
from bot.turn.run import open_turn
from bot.turn.settling import TurnStore
from bot.turn.stoppable import StoppedError
from graph.context import GraphContext
from graph.events import ErrorReply, FinalAnswer, TurnEvent, TurnResult
from graph.models import warm_chat_model
from storage.db import Database
from storage.memory import AnswerMemory
from storage.search_types import SearchFilters
from textkit.catalog import say

HISTORY_MESSAGES = 6
# a turn as `AnswerService.stream` runs it (the serving core may run it in another process)
TurnStream = Callable[..., AsyncGenerator[TurnEvent, None]]
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
        # built by `warm`, at start where turns run, else in a thread at the first turn: a
        # serving process whose turns run in worker processes builds it only for a job's
        # re-ask, and imports no langgraph until then (0.5 CPU-s a start)
        self._built: Any = None  # the compiled graph
        self._warmed = False  # graph built and model client loaded (`warm`)

    def without_memory(self) -> AnswerService:
        """This service answering without the answer memory (same search, forms, model):
        turns that are no person's question (open questions asked again) neither read
        nor write what people are served."""
        context = dataclasses.replace(self._context, memory=None)
        service = AnswerService(self._db, context, self._history, self._telemetry)
        # the same graph and model client: built and loaded once
        service._built, service._warmed = self._built, self._warmed
        return service

    def warm(self) -> None:
        """Build the graph and load what the model client would load in the first turn
        (blocking: a thread)."""
        self._graph()
        warm_chat_model(self._context.llm)
        self._warmed = True

    def _graph(self) -> Any:
        """The compiled graph (built once, at first use)."""
        if self._built is None:
            from graph.builder import build_graph

            self._built = build_graph()
        return self._built

    @property
    def telemetry(self) -> Telemetry:
        """Where turns are traced (inert without Langfuse keys); votes are scored there too."""
        return self._telemetry

    async def search(
        self, query: str, collections: Sequence[str], top_k: int = 5
    ) -> list[dict[str, Any]]:
        """The passages a turn's first search would read for `query` in `collections`
        (at most one per document, best first): document, URL, page, score and text."""
        filters = SearchFilters(collections=tuple(collections))
        hits = await self._context.searcher.search(query, top_k=top_k, filters=filters)
        return [
            {
                "document": hit.document,
                "url": hit.url,
                "page": hit.page,
                "heading": hit.heading,
                "score": round(float(hit.score), 4),
                "text": hit.text,
            }
            for hit in hits
        ]

    async def found_documents(self, question: str, collections: Sequence[str]) -> list[str]:
        """The titles the turn's first search would hand the answer for `question`, in
        `collections` (its top_k at its strictest threshold); nothing is stored."""
        hits = await self._context.searcher.search(
            question,
            top_k=self._context.top_k,
            threshold=self._context.thresholds[0],
            filters=SearchFilters(collections=tuple(collections)),
            question=question,
        )
        return [str(hit.document) for hit in hits]

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
        history: Sequence[Sequence[str]] | None = None,
    ) -> AsyncGenerator[TurnEvent, None]:
        """Run a turn as events (graph.events): Progress per node, Token and Reset as the
        graph streams them, then FinalAnswer, or ErrorReply when the graph raised or the
        answer could not be stored (the turn is stored either way, as unfinished when it
        failed, even when the caller stops listening half-way; its trace is finished
        once, with that outcome: bot.turn.ending decides it, bot.turn.settling keeps it).

        `language` is the one the user chose (it wins); `apology_language` is the
        caller's guess (message script, platform locale) for an error raised before
        any step has said which language the turn speaks. `top_k` and `threshold`
        (an API caller's) replace SEARCH_TOP_K and the first relevance threshold.
        Setting `stop` (the asker pressed Stop) cancels the graph at once: what was
        streamed so far is the answer, marked stopped (outcome `stopped`).
        `waited_ms` is what the caller waited before the turn (read when the turn
        starts, so a caller may fill it in until then); it is stored with the turn's
        timings beside `history` (loading the conversation) and `first_token` (from
        the graph's start until the first answer text streamed). `history`: the
        conversation as its caller keeps it, (role, text) pairs, read instead of the stored
        one (an OpenAI-compatible client sends its whole chat with every question).
        """
        run = await open_turn(
            self._db,
            self._telemetry,
            self._history,
            question,
            conversation,
            user,
            platform,
            language,
            waited_ms,
            history,
        )
        turn, ending = run.turn, Ending()
        storing: asyncio.Future[int] | None = None  # the stopped answer's store (a task)
        # what happens is only reported here; the ending's state decides what follows
        try:
            try:
                context = self._turn_context(collections, turn.user, top_k, threshold)
                if not self._warmed:
                    # a process that did not warm it at start (its turns run elsewhere:
                    # this is a job's re-ask, or a command's first turn): built and loaded
                    # in a thread, not on the event loop every request shares (~0.6 s)
                    await asyncio.to_thread(self.warm)
                async for mode, chunk in run.steps(self._graph(), context, stop):
                    for event in run.take(mode, chunk):
                        yield event
                ending.report(Event.GRAPH_ENDED)
                turn.result = run.result()
                turn.result.message_id = await self._turns.answered(
                    turn.conv_id, turn.state, turn.result, turn.user, collections
                )
                ending.report(Event.STORED)
            except StoppedError:
                ending.report(Event.STOP)
                turn.result = run.stopped(language, apology_language)
                # its own task: a caller gone meanwhile does not stop it (TurnStore.left)
                storing = self._turns.in_background(
                    self._turns.answered(
                        turn.conv_id, turn.state, turn.result, turn.user, collections
                    )
                )
                try:
                    turn.result.message_id = await asyncio.shield(storing)
                except Exception as exc:  # not kept: the asker is told, as for any failure
                    what = f"could not store the stopped answer of turn {turn.trace_id}"
                    log_failure(logger, what, exc, logging.WARNING)
                    ending.report(Event.ERROR, type(exc).__name__)
                else:
                    ending.report(Event.STORED)
            except Exception as exc:
                log_failure(logger, f"turn {turn.trace_id} failed", exc)
                ending.report(Event.ERROR, type(exc).__name__)
        except BaseException:  # the caller went away (cancelled, or closed the stream)
            ending.report(Event.LEFT)
            await self._turns.left(turn, ending, storing)
            raise
        await self._turns.ended(turn, ending)
        if ending.state is State.FAILED:
            # in the language of the last step shown (before any: the user's, else the guess)
            said = run.step_language or language or apology_language or "en"
            yield ErrorReply(say("error", said), said, turn.trace_id, ending.reason)
        elif turn.result is not None:
            yield FinalAnswer.of(turn.result)

    async def settle(self, timeout: float) -> bool:
        """Wait, `timeout` seconds at most, for what turns whose callers went away are
        still storing (TurnStore.settle); True when all ended."""
        return await self._turns.settle(timeout)

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

    async def export_form_file(self, name: str, collections: Sequence[str] | None = None) -> Any:
        """The stored file of a form a turn offered (`forms[i]["send_file"]`), or None."""
        if self._context.forms is None:
            return None
        return await self._context.forms.export(name, collections)
