"""retrieve_memory: answer at once from the answer memory when the question was answered before.

Runs before planning, so a remembered answer costs no LLM call. A message
that leans on the conversation ("and for children?") is looked up only once
followup_transform has made it stand alone (this node runs again after it).
The remembered answer is converted to the asker's script and streamed whole.
"""

from __future__ import annotations

import logging
import time

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.nodes.planner import looks_like_followup
from graph.state import GraphState
from storage.text import to_script

CHINESE = frozenset({"zh-hant", "zh-hans"})
logger = logging.getLogger(__name__)


def servable_in(stored: str, asked: str) -> bool:
    """True when an answer stored in `stored` can be given in `asked` (same, or another script)."""
    return stored == asked or {stored, asked} <= CHINESE


async def retrieve_memory(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Serve a remembered answer (`memory:hit`) or let the turn go on (`memory:miss`)."""
    start = time.perf_counter()
    memory = runtime.context.memory
    if memory is None:
        return {}
    question = state.get("standalone_question") or state.get("normalized_question", "")
    if "plan" not in state and state.get("history") and looks_like_followup(question):
        return {"decision_path": ["memory:after_followup"]}
    try:
        hit = await memory.lookup(question, runtime.context.collections)
    except Exception:  # the memory is a shortcut: without it the turn still answers
        logger.warning("answer memory lookup failed; answering without it", exc_info=True)
        return {"decision_path": ["memory:error"]}
    language = state.get("language", "en")
    elapsed = {"retrieve_memory": round((time.perf_counter() - start) * 1000, 3)}
    if hit is None or not servable_in(hit.language, language):
        return {"decision_path": ["memory:miss"], "timings_ms": elapsed}
    answer = to_script(hit.answer, language)
    runtime.stream_writer({"type": "token", "text": answer})  # whole, at once
    return {
        "answer": answer,
        "citations": hit.citations,
        "forms": hit.forms,
        "memory_id": hit.id,
        "decision_path": ["memory:hit"],
        "timings_ms": elapsed,
    }
