"""language_normalizer: en / zh-hant / zh-hans, normalised width and whitespace."""

from __future__ import annotations

import time

from graph.state import GraphState
from storage.text import detect_language, normalise_width


def language_normalizer(state: GraphState) -> GraphState:
    """Detect the script (answers go back in it) and normalise the masked question."""
    start = time.perf_counter()
    text = state.get("safe_question") or state.get("question") or ""
    normalized = normalise_width(text)
    # the user's chosen language wins; otherwise answers go back in the question's script
    language = state.get("reply_language") or detect_language(normalized)
    return {
        "language": language,  # type: ignore[typeddict-item]
        "normalized_question": normalized,
        "decision_path": [f"language_normalizer:{language}"],
        "timings_ms": {"language_normalizer": round((time.perf_counter() - start) * 1000, 3)},
    }
