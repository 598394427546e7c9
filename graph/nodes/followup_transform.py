"""followup_transform: turn a follow-up into a question that stands alone.

Without an LLM the previous user question is carried along, so "what about
the fee?" after "how do I renew a passport?" searches for both; a previous
question that was itself a follow-up brings the one it leaned on.
"""

from __future__ import annotations

from graph.nodes.planner import looks_like_followup
from graph.nodes.recording import Step, recorded
from graph.state import GraphState

# earlier messages a follow-up reaches back through, when they lean on their own earlier
# one ("How much is a plot?" → "and for students?" → "when are they allocated?")
MAX_CHAIN = 3


def standalone_question(question: str, history: list[dict[str, str]]) -> str:
    """The follow-up joined with the last question the user asked; when that one was a
    follow-up too, with the question it leaned on as well (`MAX_CHAIN` messages at most)."""
    asked = [m["content"] for m in history if m.get("role") == "user"]
    chain: list[str] = []
    for previous in reversed(asked):
        chain.insert(0, previous)
        if len(chain) >= MAX_CHAIN or not looks_like_followup(previous):
            break
    return " ".join([*chain, question]).strip()


@recorded("followup_transform")
def followup_transform(state: GraphState) -> Step:
    """Rewrite the follow-up and make the plan retrieve with it."""
    plan = dict(state.get("plan", {}))
    if plan.get("source") == "llm" and plan.get("query"):
        question = str(plan["query"])  # the planner call already resolved the reference
    else:
        question = standalone_question(
            state.get("normalized_question", ""), state.get("history", [])
        )
    plan.update(should_retrieve=True, query=question)
    plan["tool_calls"] = [{"name": "retrieve_documents", "args": {"query": question}}]
    update: GraphState = {
        "standalone_question": question,
        "plan": plan,  # type: ignore[typeddict-item]
    }
    return Step(update, "followup_transform")
