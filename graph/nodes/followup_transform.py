"""followup_transform: turn a follow-up into a question that stands alone.

Without an LLM the previous user question is carried along, so "what about
the fee?" after "how do I renew a passport?" searches for both.
"""

from __future__ import annotations

from graph.nodes.recording import Step, recorded
from graph.state import GraphState


def standalone_question(question: str, history: list[dict[str, str]]) -> str:
    """The follow-up joined with the last question the user asked."""
    previous = next((m["content"] for m in reversed(history) if m.get("role") == "user"), "")
    return f"{previous} {question}".strip() if previous else question


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
