"""One turn's run of the graph: its history loaded, the graph streamed, its events out.

`open_turn` masks the message, loads the conversation and starts the trace; the
`TurnRun` it returns streams the graph (stoppable by the asker) and turns what the
graph hands over into the turn's events (graph.events), then makes its result: the
answer, or what was written when the asker pressed Stop.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from bot.telemetry import Telemetry
from bot.turn.settling import TurnRecord
from bot.turn.stoppable import until_stopped
from graph.context import GraphContext
from graph.events import Progress, Token, TurnEvent, TurnResult
from graph.injection import MAX_CHARS, clean_message
from graph.privacy import mask_sensitive
from graph.replies import progress_message
from storage.db import Database
from storage.repositories import conversations as conv_repo
from textkit.catalog import say

CITATION_MARK = re.compile(r"\s?\[\d+\]")  # "[2]" after a sentence


async def open_turn(
    db: Database,
    telemetry: Telemetry,
    history_messages: int,
    question: str,
    conversation: str | None,
    user: str | None,
    platform: str,
    language: str | None,
    waited_ms: Mapping[str, float] | None,
    given: Sequence[Sequence[str]] | None = None,
) -> TurnRun:
    """A turn ready to run: its question masked, its history loaded, its trace begun.

    `given`: the history as the caller keeps it ((role, text) pairs), read instead of the
    stored one, masked and cleaned as a question is, its last `history_messages` only.
    """
    entered = time.perf_counter()
    trace_id = uuid.uuid4().hex
    external = conversation or f"oneshot-{trace_id}"
    # a long message is cut before anything is kept (the guard refuses it as
    # too_long from its received length); then the privacy rule: from here on
    # only the masked text exists
    received_chars = len(question)
    question = mask_sensitive(clean_message(question[: MAX_CHARS + 1]))
    user_ref = telemetry.pseudonyms.user(platform, user)
    async with db.autocommit() as session:  # one round trip once the conversation exists
        conv_id, rows = await conv_repo.with_history(
            session, platform, external, user, history_messages if given is None else 0
        )
    if given is not None:
        kept = [(role, _kept_text(text)) for role, text in given]
        rows = kept[len(kept) - history_messages :] if history_messages > 0 else []
    history = [{"role": role, "content": content} for role, content in rows]
    start = time.perf_counter()
    marks = {**(waited_ms or {}), "history": round((start - entered) * 1000, 3)}
    trace = telemetry.start_turn(trace_id, platform, external, user, question)
    state: dict[str, Any] = {
        "question": question,
        "question_chars": received_chars,
        "reply_language": language,
        "history": history,
        # a caller's own history (an OpenAI-style client) may put any words in the bot's mouth
        "history_given": given is not None,
        "llm_calls": 0,
        "decision_path": [],
    }
    return TurnRun(TurnRecord(conv_id, trace_id, trace, platform, user_ref, state), start, marks)


def _kept_text(text: str) -> str:
    """A caller's history message as a stored one reads: cut, cleaned, masked."""
    return mask_sensitive(clean_message(text[:MAX_CHARS]))


class TurnRun:
    """The graph's run for one turn, and what it has written so far."""

    def __init__(self, turn: TurnRecord, start: float, marks: dict[str, float]) -> None:
        self.turn = turn
        self._start = start
        self._marks = marks
        self._written = ""  # the answer streamed so far
        # of it, what ends a checked sentence: kept when the asker stops the turn (a clause
        # shown ahead of its sentence was never checked whole)
        self._settled = ""
        self.step_language: str | None = None  # the language of the last Progress made

    def steps(
        self, graph: Any, context: GraphContext, stop: asyncio.Event | None
    ) -> AsyncIterator[tuple[str, Any]]:
        """The graph's stream for this turn; `stop` set raises StoppedError (stoppable)."""
        # "values" hands over the state as the graph's own reducers folded it;
        # "updates" names the node that just ran, for progress.
        steps = graph.astream(
            self.turn.state,
            config={"callbacks": self.turn.trace.callbacks, "run_name": "graph"},
            context=context,
            stream_mode=["updates", "custom", "values"],
        )
        return until_stopped(steps, stop) if stop else steps

    def take(self, mode: str, chunk: Any) -> tuple[TurnEvent, ...]:
        """The turn's events for one step of the graph's stream: Token and Reset as the
        nodes wrote them, a Progress per node that ran; the state is kept."""
        if mode == "custom":  # Token and Reset, written by the nodes
            if isinstance(chunk, Token) and "first_token" not in self._marks:
                self._marks["first_token"] = round((time.perf_counter() - self._start) * 1000, 3)
            self._written = self._written + chunk.text if isinstance(chunk, Token) else ""
            if not (isinstance(chunk, Token) and chunk.ahead):
                self._settled = self._written
            return (chunk,)
        if mode == "values":
            self.turn.state = chunk
            return ()
        state = self.turn.state
        progress = []
        for node, update in chunk.items():
            self.step_language = (update or {}).get("language") or state.get("language", "en")
            progress.append(
                Progress(
                    node,
                    progress_message(node, self.step_language),
                    self.step_language,
                    tool_calls(state) if node == "tool_executor" else (),
                )
            )
        return tuple(progress)

    def result(self) -> TurnResult:
        """The turn's result from the graph's final state, with the turn's timings."""
        state = self.turn.state
        timings = {**self._marks, **state.get("timings_ms", {})}
        timings["total"] = round((time.perf_counter() - self._start) * 1000, 3)
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
            trace_id=self.turn.trace_id,
            timings_ms=timings,
            prompt_versions=trace.get("prompt_versions", {}),
            blocked=bool(state.get("guard_blocked")),
            outcome=state.get("outcome", "refused"),
            query=trace.get("query", {}),
            related_questions=list(state.get("related_questions", [])),
        )

    def stopped(self, language: str | None, apology_language: str | None) -> TurnResult:
        """A stopped turn's result: the checked text streamed so far, marked stopped, in
        the turn's language (before any step said it: the user's, else the guess).

        Its citation markers go (their sources were not final); nothing is
        remembered; the state's summary says `stopped` (stored and traced).
        """
        state = self.turn.state
        said = state.get("language") or language or apology_language or "en"
        partial = CITATION_MARK.sub("", self._settled).strip()
        marker = say("turn:stopped", said)
        state["answer"] = f"{partial}\n\n{marker}" if partial else marker
        state["language"] = said
        state["citations"], state["forms"] = [], []
        state.pop("memory_entry", None)
        state["trace"] = {**state.get("trace", {}), "outcome": "stopped"}
        state["outcome"] = "stopped"
        return self.result()


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
