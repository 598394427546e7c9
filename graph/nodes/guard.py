"""guard: empty/too-long messages, prompt-injection and abuse screen, secret/PII masking.

Block reasons form a closed list: empty, too_long, injection, abuse, unscreened
(the similarity screen could not finish: the message is not answered unscreened)
(and rate_limited, decided before a turn starts, by the serving core).

The service masks the question before the graph runs (graph.privacy); the guard
masks again so the graph holds the rule on its own when run directly.
"""

from __future__ import annotations

import asyncio
import logging

from langgraph.runtime import Runtime

from graph.attack_similarity import attack_bank
from graph.context import GraphContext
from graph.injection import MAX_CHARS, clean_message, screen
from graph.nodes.recording import Step, recorded
from graph.privacy import mask_sensitive
from graph.state import GraphState
from textkit.catalog import say
from textkit.scripts import conversation_script, detect_language, normalise_width

# The similarity screen's bound. A screen that has run once takes milliseconds (the
# banks' vectors are kept, the question's is the embedder's cached one); the first in a
# process also loads the model and embeds the banks: measured 10.7 s and 0.6 s on a
# 2-core machine at load average 9.6 (2026-11-28). Waited for, not skipped: a guard
# that lets messages through unscreened whenever the machine is busy is no guard.
SCREEN_TIMEOUT_S = 60.0
logger = logging.getLogger(__name__)


@recorded("guard", lane=True)
async def guard(state: GraphState, runtime: Runtime[GraphContext] | None = None) -> Step:
    """Screen the message; a blocked one gets its reply here and skips the pipeline.

    Two screens for injections: the patterns (`graph.injection`), then, with an
    embedder in the run context, closeness in meaning to a known attack
    (`graph.attack_similarity`), which catches rewordings the patterns miss; its block
    shows as `guard:blocked:injection:similar`."""
    question = clean_message(state.get("question") or "").strip()
    # the service caps what it keeps of a long message; the length it received decides
    length = max(len(question), state.get("question_chars") or 0)
    shared = conversation_script(state.get("history", []))
    language = state.get("reply_language") or (
        detect_language(question, shared) if question else "en"
    )
    reason: str | None = None
    how = ""  # a block by closeness in meaning says so in the decision path
    if not question:
        reason, reply = "empty", say("empty", language)
    elif length > MAX_CHARS:
        reason, reply = "too_long", say("too_long", language, limit=MAX_CHARS)
    elif (verdict := screen(question)) is not None:
        reason, reply = verdict, say(verdict, language)
    elif (close := await _close_to_an_attack(question, runtime)) is None:
        reason, reply = "unscreened", say("error", language)
    elif close:
        reason, reply, how = "injection", say("injection", language), ":similar"
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
    return Step(update, "guard" if reason is None else f"guard:blocked:{reason}{how}")


async def _close_to_an_attack(question: str, runtime: Runtime[GraphContext] | None) -> bool | None:
    """The similarity screen's verdict: False (the message goes on) when it is off, or the
    embedder fails (the patterns have already screened the message; the search, which
    needs the same embedder, will fail too); None when it did not finish in
    SCREEN_TIMEOUT_S: the message is then refused, not let through unscreened."""
    embedder = runtime.context.screen_embedder if runtime is not None else None
    if embedder is None:
        return False
    try:
        async with asyncio.timeout(SCREEN_TIMEOUT_S):
            # in the width the language normaliser gives the search: its embedding of the
            # question is then this one, from the embedder's cache (and "ｉｇｎｏｒｅ" is "ignore")
            closeness = await attack_bank().closeness(embedder, normalise_width(question))
    except TimeoutError:
        logger.error(
            "the similarity screen did not finish in %.0f s: message refused", SCREEN_TIMEOUT_S
        )
        return None
    except Exception as exc:  # a broken embedder: one screen of two, the patterns ran
        logger.warning("similarity screen unavailable (%s): patterns only", type(exc).__name__)
        return False
    if closeness.blocks:
        logger.info(
            "blocked as close to a known attack (%.2f; nearest ordinary request %.2f)",
            closeness.attack,
            closeness.ordinary,
        )
    return closeness.blocks
