"""Small in-process fakes for testing graph nodes alone: searcher, chat model, runtime."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk
from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.events import TurnEvent


@dataclass
class Hit:
    """What a searcher returns."""

    chunk_id: int
    score: float
    document: str = "doc"
    text: str = "Passports are renewed at the City Service Centre."
    page: int | None = None
    heading: str | None = None
    support: float = 1.0  # the passage answers the question (graph.grounding) unless set lower
    cosine: float = 0.0


@dataclass
class FakeSearcher:
    """Returns scripted hits and records each query."""

    hits: list[Hit] = field(default_factory=list)
    queries: list[tuple[str, float]] = field(default_factory=list)

    async def search(self, query: str, top_k: int = 5, threshold: float = 0.0, **_: Any) -> list:
        self.queries.append((query, threshold))
        return [h for h in self.hits if h.score >= threshold][:top_k]


@dataclass
class FakeLLM:
    """A chat model that replies with scripted texts (or raises), recording the prompts."""

    replies: list[str | Exception]
    seen: list[list[Any]] = field(default_factory=list)

    def _next(self, messages: list[Any]) -> str:
        self.seen.append(messages)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    async def ainvoke(self, messages: list[Any], **_: Any) -> AIMessage:
        return AIMessage(self._next(messages))

    async def astream(self, messages: list[Any], **_: Any) -> Any:
        yield AIMessageChunk(content=self._next(messages))
        yield AIMessageChunk(content="", response_metadata={"finish_reason": "stop"})


def runtime(**kwargs: Any) -> tuple[Runtime[GraphContext], list[TurnEvent]]:
    """A node's run context (a FakeSearcher unless given) and the events it streams."""
    events: list[TurnEvent] = []
    context = GraphContext(searcher=kwargs.pop("searcher", FakeSearcher()), **kwargs)
    return Runtime(context=context, stream_writer=events.append), events


def chunk(
    chunk_id: int, score: float, text: str = "", document: str = "doc", support: float = 1.0
) -> dict[str, Any]:
    """A retrieved chunk as it sits in the graph state (grounded unless `support` is low)."""
    return {
        "chunk_id": chunk_id,
        "score": score,
        "text": text,
        "document": document,
        "page": None,
        "support": support,
    }
