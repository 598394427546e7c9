"""language_normalizer: en / zh-hant / zh-hans, normalised width and whitespace."""

from __future__ import annotations

from graph.nodes.recording import Step, recorded
from graph.state import GraphState
from textkit.scripts import conversation_script, detect_language, normalise_width


@recorded("language_normalizer")
def language_normalizer(state: GraphState) -> Step:
    """Detect the script (answers go back in it) and normalise the masked question."""
    text = state.get("safe_question") or state.get("question") or ""
    normalized = normalise_width(text)
    # the user's chosen language wins; otherwise answers go back in the question's script,
    # and a message in characters both scripts share in the one the user has been writing
    shared = conversation_script(state.get("history", []))
    language = state.get("reply_language") or detect_language(normalized, shared)
    update: GraphState = {
        "language": language,  # type: ignore[typeddict-item]
        "normalized_question": normalized,
    }
    return Step(update, f"language_normalizer:{language}")
