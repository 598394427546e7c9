"""retrieve_memory: answer at once from the answer memory when the question was answered before.

Runs before planning, so a remembered answer costs no LLM call. A message
that leans on the conversation ("and for children?") is looked up only once
followup_transform has made it stand alone (this node runs again after it).
The remembered answer is converted to the asker's script and streamed whole; its
sources' titles are shown in that script too (graph.titles).
"""

from __future__ import annotations

import logging

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.events import Token
from graph.message_shapes import looks_like_followup
from graph.nodes.recording import Step, recorded
from graph.offered_choice import place_named
from graph.state import GraphState
from graph.titles import with_display_titles
from textkit.scripts import to_script

CHINESE = frozenset({"zh-hant", "zh-hans"})
logger = logging.getLogger(__name__)


def servable_in(stored: str, asked: str) -> bool:
    """True when an answer stored in `stored` can be given in `asked` (same, or another script)."""
    return stored == asked or {stored, asked} <= CHINESE


@recorded("retrieve_memory")
async def retrieve_memory(state: GraphState, runtime: Runtime[GraphContext]) -> Step | None:
    """Serve a remembered answer (`memory:hit`) or let the turn go on (`memory:miss`)."""
    memory = runtime.context.memory
    if memory is None:
        return None  # no answer memory configured: the node leaves no trace
    question = state.get("standalone_question") or state.get("normalized_question", "")
    if place_named(question) is not None:
        # "2" picking nothing: no question to look up (an answer remembered for a bare
        # "2" by an older version must not be served for it either)
        return Step({}, "memory:place", timed=False)
    if "plan" not in state and state.get("history") and looks_like_followup(question):
        return Step({}, "memory:after_followup", timed=False)
    try:
        hit = await memory.lookup(question, runtime.context.collections)
    except Exception:  # the memory is a shortcut: without it the turn still answers
        logger.warning("answer memory lookup failed; answering without it", exc_info=True)
        return Step({}, "memory:error", timed=False)
    language = state.get("language", "en")
    if hit is None or not servable_in(hit.language, language):
        return Step({}, "memory:miss")
    answer = to_script(hit.answer, language)
    runtime.stream_writer(Token(answer))  # whole, at once
    update: GraphState = {
        "answer": answer,
        "citations": with_display_titles(hit.citations, language),
        "forms": hit.forms,
        "memory_id": hit.id,
        "outcome": "memory",
    }
    return Step(update, "memory:hit")
