"""consolidate_memory: decide what of this turn the answer memory keeps (the service stores it).

Only answers worth giving again to anyone: a looked-up question (not a
follow-up, greeting or out-of-scope request) answered from grounded, cited
evidence (an FAQ entry grounded by a model's entry check alone does not count),
or with the forms asked for. Never a refusal, a blocked message, an
answer that came from memory, or a question whose masked text holds personal
data placeholders ([EMAIL], [PHONE], …): memory is shared by every asker.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.entry_question import confirmed_entry
from graph.message_shapes import looks_like_followup
from graph.nodes.recording import Step, recorded
from graph.privacy import PLACEHOLDERS
from graph.state import GraphState


def memory_entry(state: GraphState) -> dict[str, Any] | None:
    """What to remember of a finished turn, or None."""
    # not blocked, refused, small talk, or an answer that came from memory
    outcome = state.get("outcome", "refused")
    if outcome not in ("answered", "forms"):
        return None
    if state.get("plan", {}).get("task_type") not in ("simple_faq", "form_download"):
        return None
    asked = state.get("question", "")
    if any(p in asked for p in PLACEHOLDERS):
        return None
    question = state.get("normalized_question", "")
    if state.get("history") and looks_like_followup(question):
        return None  # "and what does it cost?" means something only in its conversation
    citations = state.get("citations", [])
    forms = state.get("forms", [])
    # an FAQ entry grounded only by a model's "yes" (graph.entry_check) is not kept for
    # every asker: a message can talk a model into it
    grounded = any(e.get("grounded") and not confirmed_entry(e) for e in state.get("evidence", []))
    if not ((citations and grounded) if outcome == "answered" else forms):
        return None
    return {
        "question": question,
        "language": state.get("language", "en"),
        "answer": state.get("answer", ""),
        "citations": citations,
        "forms": forms,
        "read": chunks_read(state.get("evidence", []), citations),
    }


def chunks_read(evidence: list[dict[str, Any]], citations: list[dict[str, Any]]) -> list[int]:
    """The chunk ids of the cited documents this turn read: the versions the answer rests on.

    A document replaced while the turn ran has new chunks, so the memory can tell
    the answer came from a version that is gone (its current hash would not).
    """
    cited = {c.get("document") for c in citations}
    return sorted(
        {
            int(e["chunk_id"])
            for e in evidence
            if e.get("document") in cited and isinstance(e.get("chunk_id"), int)
        }
    )


@recorded("consolidate_memory")
def consolidate_memory(state: GraphState, runtime: Runtime[GraphContext]) -> Step:
    """Mark the turn for the answer memory when it qualifies."""
    entry = memory_entry(state) if runtime.context.memory is not None else None
    if entry is None:
        return Step({}, None)
    return Step({"memory_entry": entry}, "memory:consolidate")
