"""followup_transform: turn a follow-up into a question that stands alone.

Without an LLM the previous user question is carried along, so "what about
the fee?" after "how do I renew a passport?" searches for both; a previous
question that was itself a follow-up brings the one it leaned on, and one that
asked only a kind of answer ("how much?") is passed over for the thing it asked about.
"""

from __future__ import annotations

from graph.message_shapes import asks_only_a_kind, is_greeting, looks_like_followup, names_little
from graph.nodes.recording import Step, recorded
from graph.offered_choice import place_named
from graph.question_parts import asked_of_topic
from graph.state import GraphState
from textkit.answer_type import answer_kinds

# the messages joined at most, the follow-up's own included ("How much is a plot?" →
# "and for students?" → "when are they allocated?")
MAX_CHAIN = 3


def standalone_question(question: str, history: list[dict[str, str]]) -> str:
    """The follow-up joined with the last question the user asked (a greeting or thanks
    is none, nor a place that picked nothing); when that one was a follow-up naming
    little of its own, with the question it leaned on as well (`MAX_CHAIN` messages at
    most). A follow-up naming things of its own ("Then how do I get a library card?")
    starts a topic: the chain stops there."""
    return _standalone(question, history)[0]


def _standalone(question: str, history: list[dict[str, str]]) -> tuple[str, bool]:
    """`standalone_question`, and whether it is the follow-up's own ask followed by the
    chain's topic words (a follow-up asking only a kind of answer: "how much?")."""
    # a place that picked nothing ("the second one" with no list open) names nothing to
    # lean on: a pick is kept as the question it picked, so one left bare picked nothing
    asked = [
        m["content"]
        for m in history
        if m.get("role") == "user"
        and not is_greeting(m["content"])
        and place_named(m["content"]) is None
    ]
    chain: list[str] = []
    for previous in reversed(asked):
        leans = looks_like_followup(previous) and names_little(previous)
        if leans and asks_only_a_kind(previous):
            # an earlier ask about the same thing ("要多少錢？" before "多久？") adds
            # its own kind of answer, not the thing: the thing is further back
            continue
        chain.insert(0, previous)
        if len(chain) >= MAX_CHAIN - 1 or not leans:
            break
    if chain and asks_only_a_kind(question):
        # "how much?": what it asks is its own, what about is the chain's
        return asked_of_topic(question, " ".join(chain)), True
    return " ".join([*chain, question]).strip(), False


@recorded("followup_transform")
def followup_transform(state: GraphState) -> Step:
    """Rewrite the follow-up and make the plan retrieve with it."""
    plan = dict(state.get("plan", {}))
    asked = state.get("normalized_question", "")
    if plan.get("source") == "llm" and plan.get("query"):
        question = str(plan["query"])  # the planner call already resolved the reference
        # an ask of a kind alone is judged as the question the planner resolved it to
        of_topic = question != asked and asks_only_a_kind(asked)
    else:
        question, of_topic = _standalone(asked, state.get("history", []))
    plan.update(should_retrieve=True, query=question)
    plan["tool_calls"] = [{"name": "retrieve_documents", "args": {"query": question}}]
    update: GraphState = {
        "standalone_question": question,
        "plan": plan,  # type: ignore[typeddict-item]
    }
    if of_topic and "price" in answer_kinds(asked):
        # a price is stated without the words that ask it (收費, "1,300 dollars" for
        # 要多少錢？, "how much?"): judged alone, the ask holds no word of its answer, so
        # the turn is judged as "要多少錢？ 停車 許可證" (a duration's "takes 4 days"
        # holds the "take" of its ask: its own words pick its sentence)
        update["normalized_question"] = question
    return Step(update, "followup_transform")
