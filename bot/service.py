"""The service that runs one turn: load history, run the graph, store the turn."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from typing import Any

from graph.builder import build_graph
from graph.context import GraphContext
from storage.db import Database
from storage.repositories import conversations as conv_repo

HISTORY_MESSAGES = 6


@dataclass
class TurnResult:
    """What a turn produced, for adapters to render."""

    answer: str
    language: str
    intent: str | None
    citations: list[dict[str, Any]]
    forms: list[dict[str, Any]]
    decision_path: list[str]
    retrieval_loops: int
    llm_calls: int
    trace_id: str
    timings_ms: dict[str, float]
    prompt_versions: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """The JSON shape of `ragbot ask --json`."""
        return asdict(self)


class AnswerService:
    """Runs turns through the graph with history kept in Postgres."""

    def __init__(
        self, db: Database, context: GraphContext, history_messages: int = HISTORY_MESSAGES
    ) -> None:
        self._db = db
        self._context = context
        self._history = history_messages
        self._graph = build_graph()

    async def ask(
        self,
        question: str,
        conversation: str | None = None,
        user: str | None = None,
        platform: str = "console",
    ) -> TurnResult:
        """Answer one message; the turn is stored under (platform, conversation)."""
        result: TurnResult | None = None
        async for event in self.stream(question, conversation, user, platform):
            if event["type"] == "done":
                result = event["result"]
        assert result is not None
        return result

    async def stream(
        self,
        question: str,
        conversation: str | None = None,
        user: str | None = None,
        platform: str = "console",
    ) -> AsyncIterator[dict[str, Any]]:
        """Run a turn as events: progress steps, answer tokens, a reset, then done.

        {"type": "progress", "step": node}, {"type": "token", "text": ...},
        {"type": "reset"} (drop streamed tokens: a fallback answer follows),
        {"type": "done", "result": TurnResult}.
        """
        trace_id = uuid.uuid4().hex
        external = conversation or f"oneshot-{trace_id}"
        async with self._db.transaction() as session:
            conv_id = await conv_repo.get_or_create(session, platform, external, user)
            history = [
                {"role": m.role, "content": m.content}
                for m in await conv_repo.recent_messages(session, conv_id, self._history)
            ]
        start = time.perf_counter()
        state: dict[str, Any] = {
            "question": question,
            "history": history,
            "llm_calls": 0,
            "decision_path": [],
        }
        # "values" hands over the state as the graph's own reducers folded it;
        # "updates" names the node that just ran, for progress.
        async for mode, chunk in self._graph.astream(
            state, context=self._context, stream_mode=["updates", "custom", "values"]
        ):
            if mode == "custom":
                yield chunk
            elif mode == "values":
                state = chunk
            else:
                for node, update in chunk.items():
                    language = (update or {}).get("language") or state.get("language", "en")
                    yield {"type": "progress", "step": node, "language": language}
        timings = dict(state.get("timings_ms", {}))
        timings["total"] = round((time.perf_counter() - start) * 1000, 3)
        trace = state.get("trace", {})
        result = TurnResult(
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
        )
        await self._store(conv_id, question, result, trace)
        yield {"type": "done", "result": result}

    async def export_form_file(self, name: str) -> Any:
        """The stored file of a form a turn offered (`forms[i]["send_file"]`), or None."""
        if self._context.forms is None:
            return None
        return await self._context.forms.export(name)

    async def _store(self, conv_id: int, question: str, result: TurnResult, trace: dict) -> None:
        async with self._db.transaction() as session:
            await conv_repo.add_message(
                session,
                conv_id,
                "user",
                question,
                language=result.language,
                trace_id=result.trace_id,
            )
            await conv_repo.add_message(
                session,
                conv_id,
                "assistant",
                result.answer,
                language=result.language,
                intent=result.intent,
                citations=result.citations,
                trace_id=result.trace_id,
                details={
                    "decision_path": result.decision_path,
                    "timings_ms": result.timings_ms,
                    "llm_calls": result.llm_calls,
                    "trace": trace,
                },
            )
