"""What the graph is handed at run time (LangGraph `context_schema`): no globals, no storage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from graph.cpu_lane import CpuLane
from graph.llm_client import CallLimits
from graph.related_questions import DEFAULT_OFFERED
from graph.structured import FormatLadder

if TYPE_CHECKING:
    from graph.rerank import Reranker


class Searcher(Protocol):
    """Hybrid search over the knowledge base (storage.search.HybridSearcher fits)."""

    async def search(
        self,
        query: str,
        top_k: int = 5,
        threshold: float = 0.0,
        filters: Any = None,
        mode: str = "hybrid",
        per_document: int = 1,
        question: str | None = None,
        other_languages: bool = False,
    ) -> list[Any]: ...


class FormFinder(Protocol):
    """Finds forms by fuzzy name/alias match in any language."""

    async def find(
        self, text: str, limit: int = 3, collections: Sequence[str] | None = None
    ) -> list[Any]: ...

    async def export(self, name: str, collections: Sequence[str] | None = None) -> Any: ...


class AnswerMemory(Protocol):
    """Answers remembered from earlier turns (storage.memory.AnswerMemory fits)."""

    async def lookup(self, question: str, collections: Sequence[str] | None) -> Any: ...


@dataclass
class GraphContext:
    """Dependencies and knobs of one graph run."""

    searcher: Searcher
    forms: FormFinder | None = None
    llm: Any = None  # a langchain chat model, or None for the deterministic mode
    llm_timeout: float = 30.0  # seconds each LLM attempt may wait for its reply (first token)
    llm_retries: int = 0  # further attempts after a timeout or provider error
    embedder: Any = None  # langchain Embeddings: ranks sentences for extractive answers
    # the embedder of the guard's similarity screen (the local model it was calibrated
    # for); None: the patterns alone
    screen_embedder: Any = None
    top_k: int = 5
    # chunks per document a turn reads: a document's fee section may rank just below its
    # intro (a question asking a kind of answer reads further ones: graph.further_passages)
    chunks_per_document: int = 2
    thresholds: tuple[float, ...] = (0.65, 0.50, 0.35)
    max_loops: int = 3
    # when the planner asks the model (LLM_PLANNER): "always", or "unsure" — only when
    # the rules cannot be sure of the plan (a message with history may lean on it)
    llm_planner: str = "always"
    # a first message's FAQ entry the embedder leaves unsure put to the model
    # (LLM_ENTRY_CHECK; graph.entry_check)
    entry_check: bool = False
    # FAQ questions near the one asked a refusal lists at most (RELATED_QUESTIONS;
    # graph.related_questions); 0: none
    related_questions: int = DEFAULT_OFFERED
    prompt_versions: dict[str, str] = field(default_factory=dict)
    # the collections this turn's asker may read (None: all); set per turn by the service
    collections: tuple[str, ...] | None = None
    # the search restrictions matching `collections`, opaque to the graph (SearchFilters)
    search_filters: Any = None
    # the response formats this endpoint accepts, learnt on the way (shared across turns)
    llm_formats: FormatLadder = field(default_factory=FormatLadder)
    # who a refusal sends the user to, per language (HANDOFF_CONTACT*); "" uses the default
    handoff: dict[str, str] = field(default_factory=dict)
    # answers of earlier turns served again (MEMORY_ENABLED); None: every turn runs in full
    memory: AnswerMemory | None = None
    # the process's turns take their CPU steps one at a time, in arrival order (shared
    # across turns; graph.cpu_lane); None: every turn at once
    cpu_lane: CpuLane | None = None
    # reorders each search's fused hits (RERANK_BASE_URL; graph.rerank); None: the
    # fusion's order, as before
    reranker: Reranker | None = None

    @property
    def llm_limits(self) -> CallLimits:
        """The bounds of every LLM call of the run (LLM_TIMEOUT, LLM_MAX_RETRIES)."""
        return CallLimits(self.llm_timeout, self.llm_retries)
