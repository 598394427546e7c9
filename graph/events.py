"""The typed events of one turn, defined once: the graph streams some, the service the rest.

Nodes hand `Token` and `Reset` to LangGraph's stream writer; `AnswerService.stream`
adds `Progress`, then ends with `FinalAnswer` or `ErrorReply`. The serving core
forwards them unchanged and the adapters render them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


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
    message_id: int | None = None  # the stored answer: feedback buttons point at it
    blocked: bool = False
    # answered, refused, blocked, forms, smalltalk, memory (served from the answer memory)
    outcome: str = "refused"
    # the question as kept (masked), as it stood alone, the query of the last search, and
    # the earlier queries that found nothing usable (the self-correction's rewrites)
    query: dict[str, Any] = field(default_factory=dict)
    # a refusal's FAQ questions near the one asked (graph.related_questions), also listed
    # in `answer`: a client may offer them as buttons
    related_questions: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The JSON shape of `ragbot ask --json`."""
        return asdict(self)


@dataclass(frozen=True)
class Progress:
    """A step of the turn finished; `text` is what to show (None: nothing to show)."""

    step: str
    text: str | None
    language: str
    # the tools the step ran ({"name", "args"}): set on the tool executor's step
    tools: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Token:
    """A piece of the answer as it is generated."""

    text: str
    # the first clauses of a sentence not yet checked whole: shown, but not kept as the
    # answer if the turn stops before the sentence ends (graph.citations)
    ahead: bool = False


@dataclass(frozen=True)
class Reset:
    """Drop the streamed tokens: the model failed mid-answer and another answer follows."""


@dataclass(frozen=True)
class FinalAnswer:
    """The checked answer with its citations and forms; `message_id` is what votes point at."""

    text: str
    language: str
    citations: list[dict[str, Any]]
    forms: list[dict[str, Any]]
    message_id: int | None
    result: TurnResult
    handoff: bool = False  # a person can take over: adapters show "Ask a person"

    @classmethod
    def of(cls, result: TurnResult) -> FinalAnswer:
        """The event that hands a finished turn's result over."""
        return cls(
            result.answer,
            result.language,
            result.citations,
            result.forms,
            result.message_id,
            result,
        )


@dataclass(frozen=True)
class ErrorReply:
    """Something failed; `text` is a clear message for the user, in their language.

    The turn's own failure carries its `trace_id` and `error` (the exception's
    class, for logs and `ragbot ask`); the core's failures outside a turn
    (claiming a delivery) carry neither.
    """

    text: str
    language: str
    trace_id: str | None = None
    error: str | None = None


# what a turn produces, in order: Progress and Token/Reset, then FinalAnswer or ErrorReply
TurnEvent = Progress | Token | Reset | FinalAnswer | ErrorReply
