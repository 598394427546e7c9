"""guard: empty/too-long messages, prompt-injection and abuse screen, secret/PII masking.

Block reasons form a closed list: empty, too_long, injection, abuse (and
rate_limited, decided before a turn starts, by the serving core).

The service masks the question before the graph runs (graph.privacy); the guard
masks again so the graph holds the rule on its own when run directly.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.attack_similarity import THRESHOLD, attack_bank
from graph.context import GraphContext
from graph.injection import clean_message, screen
from graph.nodes.recording import Step, recorded
from graph.privacy import mask_sensitive
from graph.state import GraphState
from textkit.catalog import say
from textkit.scripts import detect_language

MAX_CHARS = 2000


@recorded("guard")
async def guard(state: GraphState, runtime: Runtime[GraphContext] | None = None) -> Step:
    """Screen the message; a blocked one gets its reply here and skips the pipeline.

    Two screens for injections: the patterns (`graph.injection`), then, with an
    embedder in the run context, closeness in meaning to a known attack
    (`graph.attack_similarity`), which catches rewordings the patterns miss."""
    question = clean_message(state.get("question") or "").strip()
    # the service caps what it keeps of a long message; the length it received decides
    length = max(len(question), state.get("question_chars") or 0)
    language = state.get("reply_language") or (detect_language(question) if question else "en")
    reason: str | None = None
    if not question:
        reason, reply = "empty", say("empty", language)
    elif length > MAX_CHARS:
        reason, reply = "too_long", say("too_long", language, limit=MAX_CHARS)
    elif (verdict := screen(question)) is not None:
        reason, reply = verdict, say(verdict, language)
    elif await _close_to_an_attack(question, runtime):
        reason, reply = "injection", say("injection", language)
    update: GraphState = {
        "guard_blocked": reason is not None,
        "guard_reason": reason,
        "safe_question": mask_sensitive(question),
    }
    if reason is not None:
        update["answer"] = reply
        update["language"] = language  # type: ignore[typeddict-item]
        update["citations"] = []
        update["outcome"] = "blocked"
    return Step(update, "guard" if reason is None else f"guard:blocked:{reason}")


async def _close_to_an_attack(question: str, runtime: Runtime[GraphContext] | None) -> bool:
    embedder = runtime.context.embedder if runtime is not None else None
    if embedder is None:
        return False
    return await attack_bank().similarity(embedder, question) >= THRESHOLD
