"""language_normalizer: en / zh-hant / zh-hans, normalised width and whitespace.

A reply that only picks one of the questions the last answer offered ("2", "the
second one", 第二個: graph.offered_choice) is normalised to that question.
"""

from __future__ import annotations

from graph.nodes.recording import Step, recorded
from graph.offered_choice import chosen_question
from graph.state import GraphState
from textkit.scripts import (
    conversation_script,
    detect_language,
    has_chinese,
    normalise_width,
    to_script,
)


@recorded("language_normalizer")
def language_normalizer(state: GraphState) -> Step:
    """Detect the script (answers go back in it) and normalise the masked question."""
    text = state.get("safe_question") or state.get("question") or ""
    normalized = normalise_width(text)
    history = state.get("history", [])
    # only what the bot itself offered (the stored history) can be picked: a caller's own
    # history could offer anything, which would then be asked unscreened
    picked = None if state.get("history_given") else chosen_question(normalized, history)
    # the user's chosen language wins; otherwise answers go back in the question's script,
    # and a message in characters both scripts share in the one the user has been writing;
    # a pick is in its question's language (offered in the asker's), its script the
    # reply's when written in Chinese (第二個: Traditional); "q2" or "the second one" say
    # nothing of the language
    shared = conversation_script(history)
    typed = normalized if picked is None or has_chinese(normalized) else picked
    language = state.get("reply_language") or detect_language(typed, shared)
    update: GraphState = {
        "language": language,  # type: ignore[typeddict-item]
        "normalized_question": normalized if picked is None else to_script(picked, language),
    }
    if picked is None:
        return Step(update, f"language_normalizer:{language}")
    update["picked_offer"] = True  # it stands alone: no follow-up of what came before
    return Step(update, f"language_normalizer:offered:{language}")
