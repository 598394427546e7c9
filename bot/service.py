"""The service that runs one turn: load history, run the graph, store the turn."""

from __future__ import annotations

import time
import uuid
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

    def __init__(self, db: Database, context: GraphContext) -> None:
        self._db = db
        self._context = context
        self._graph = build_graph()

    async def ask(
        self,
        question: str,
        conversation: str | None = None,
        user: str | None = None,
        platform: str = "console",
    ) -> TurnResult:
        """Answer one message; the turn is stored under (platform, conversation)."""
        trace_id = uuid.uuid4().hex
        external = conversation or f"oneshot-{trace_id}"
        async with self._db.transaction() as session:
            conv_id = await conv_repo.get_or_create(session, platform, external, user)
            history = [
                {"role": m.role, "content": m.content}
                for m in await conv_repo.recent_messages(session, conv_id, HISTORY_MESSAGES)
            ]
        start = time.perf_counter()
        state = await self._graph.ainvoke(
            {"question": question, "history": history, "llm_calls": 0, "decision_path": []},
            context=self._context,
        )
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
        return result

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
