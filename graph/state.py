"""The graph's typed state: every field a node reads or writes, documented once."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

# "no_offer": a reply naming a place ("2", "the second one") with no offered list open
TaskType = Literal[
    "simple_faq", "form_download", "conversation_followup", "out_of_scope", "greeting", "no_offer"
]
RetrievalStatus = Literal["pending", "generate", "retry", "fallback"]
# what the user got from a turn (`outcome` in `ragbot ask --json`, traces and stats)
Outcome = Literal["answered", "refused", "blocked", "forms", "smalltalk", "memory"]


def add_timings(left: dict[str, float], right: dict[str, float]) -> dict[str, float]:
    """Per-node milliseconds, summed when a node runs again in a retry loop."""
    merged = dict(left)
    for node, ms in right.items():
        merged[node] = round(merged.get(node, 0.0) + ms, 3)
    return merged


class ToolCall(TypedDict):
    """A planned tool call: `name` is a tool of tool_executor, `args` its arguments."""

    name: str
    args: dict[str, Any]


class Plan(TypedDict, total=False):
    """The planner's decision."""

    task_type: TaskType
    should_retrieve: bool
    query: str  # the retrieval query that came out of the same planner call
    alternates: list[str]  # up to two other phrasings (other words, script or English) for retries
    tool_calls: list[ToolCall]
    source: Literal["llm", "rules"]  # rules: no LLM configured, or the LLM failed
    # a question asking two or three things (graph.question_parts): each part's text as
    # asked and its search query; absent for a single question
    parts: list[dict[str, str]]


class Retrieval(TypedDict, total=False):
    """The self-correction loop's bookkeeping."""

    loop: int  # 1-based loop number of the current attempt
    query: str  # the query of the current attempt
    threshold: float  # relevance threshold of the current attempt
    status: RetrievalStatus
    pass_rate: float  # share of retrieved chunks that passed grading
    failed_queries: list[str]  # earlier queries that found nothing usable


class GraphState(TypedDict, total=False):
    """One turn's state.

    Input fields are set by the service before the run; each node returns only
    the keys it changes.
    """

    # input
    question: str  # the user's message as received (capped at the guard's limit)
    question_chars: int  # the message's length before the cap (the guard blocks it as too long)
    history: list[dict[str, str]]  # earlier turns, oldest first: {"role", "content"}
    # the history came with the request (an OpenAI-style client), not from the store: its
    # assistant messages are the caller's words, never read as what the bot offered
    history_given: bool
    reply_language: str | None  # the language the user chose (Telegram /lang): wins over detection
    # guard
    guard_blocked: bool
    guard_reason: str | None
    safe_question: str  # the question with secrets/PII masked
    # language_normalizer
    language: Literal["en", "zh-hant", "zh-hans"]
    normalized_question: str
    # the message only picked a question the last answer offered ("2": graph.offered_choice),
    # and `normalized_question` is that question: it stands alone, leaning on nothing before
    picked_offer: bool
    # planner / followup_transform
    plan: Plan
    standalone_question: str  # a follow-up rewritten to stand alone
    # query_builder / tool_executor / retrieval_checker
    retrieval: Retrieval
    # every chunk retrieved this turn at the loosest threshold, merged across loops
    # (newest search first, in its order; best score per chunk): each loop regrades
    # them, and a query already tried this turn is not searched again
    candidates: list[dict[str, Any]]
    evidence: list[dict[str, Any]]  # graded chunks: document, chunk_id, text, score, page
    # a split question (plan["parts"]): each part's candidates, merged across loops, and
    # its graded evidence (empty: nothing grounded, the part is missing)
    part_candidates: list[list[dict[str, Any]]]
    part_evidence: list[list[dict[str, Any]]]
    forms: list[dict[str, Any]]  # form links offered: name, url, has_file
    # response_synth
    answer: str
    citations: list[dict[str, Any]]  # {n, document, page, url} in citation order
    # a refusal's FAQ questions near the one asked, in the reader's script (absent: none;
    # graph.related_questions): also listed in `answer`
    related_questions: list[str]
    # retrieve_memory / consolidate_memory
    memory_id: int  # the remembered answer this turn served (absent: none)
    # what the service stores in the answer memory after this turn (absent: nothing):
    # question (masked, normalised), language, answer, citations, forms
    memory_entry: dict[str, Any]
    # the turn's outcome, set by the node that decided the reply: guard ("blocked"),
    # retrieve_memory on a hit ("memory") or response_synth (the rest); absent: refused
    outcome: Outcome
    # telemetry
    trace: dict[str, Any]  # the turn summary the service stores and traces
    # bookkeeping, added to each node's update by graph.nodes.recording (llm:* by the node)
    decision_path: Annotated[list[str], operator.add]  # each node's decision, in order
    llm_calls: Annotated[int, operator.add]
    timings_ms: Annotated[dict[str, float], add_timings]
    prompt_versions: Annotated[dict[str, str], operator.or_]
