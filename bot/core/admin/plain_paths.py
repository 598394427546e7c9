"""A turn's decision path in plain words, for the admin console's Feedback page.

The graph records each step as a code (`retrieval_checker:fallback:pass_rate=0.0`,
`response_synth:refusal`); an admin reads a short sentence instead. The table
below is the one place the codes are worded (the words in textkit's catalog,
`admin:path_*`, in the three languages); a code it does not know is shown as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from textkit.catalog import say

# (code prefix, catalog key): the first prefix that matches wins; `{value}` is the rest
_RULES: tuple[tuple[str, str | None], ...] = (
    ("telemetry", None),  # bookkeeping: nothing an admin needs
    ("language_normalizer:offered:", "admin:path_offered_pick"),
    ("language_normalizer:", "admin:path_language"),
    ("guard:blocked:", "admin:path_blocked"),
    ("guard", "admin:path_guard"),
    ("followup_transform", "admin:path_followup"),
    ("memory:hit", "admin:path_memory_hit"),
    ("memory:", None),  # a miss or a skip changes nothing the admin sees
    ("planner:", "admin:path_planner"),
    ("query_builder:loop", "admin:path_search_round"),
    ("tool_executor:", "admin:path_searched"),
    ("rerank:", None),
    ("retrieval_checker:generate", "admin:path_enough"),
    ("retrieval_checker:retry", "admin:path_retry"),
    ("retrieval_checker:fallback", "admin:path_fallback"),
    ("response_synth:llm_refusal", "admin:path_llm_refusal"),
    ("response_synth:llm", "admin:path_llm"),
    ("response_synth:extractive", "admin:path_extractive"),
    ("response_synth:refusal", "admin:path_refusal"),
    ("response_synth:related:failed", "admin:path_related_failed"),
    ("response_synth:related:", "admin:path_related"),
    ("response_synth:out_of_scope", "admin:path_out_of_scope"),
    ("response_synth:greeting", "admin:path_greeting"),
    ("response_synth:no_offer", "admin:path_no_offer"),
    ("response_synth:forms", "admin:path_forms"),
    ("memory:consolidate", None),
)


def _value(code: str, prefix: str) -> str:
    """What follows the prefix: a pass rate as a percentage, else the rest as it is."""
    rest = code[len(prefix) :].lstrip(":")
    _, found, rate = rest.partition("pass_rate=")
    if found:
        try:
            return f"{round(float(rate.split(':')[0]) * 100)}%"
        except ValueError:
            return rate
    return rest.replace("_", " ")


def plain_step(code: str, language: str) -> str | None:
    """One code in words (None: a step not worth showing; an unknown code as it is)."""
    for prefix, key in _RULES:
        if code.startswith(prefix):
            return None if key is None else say(key, language, value=_value(code, prefix))
    return code


def plain_path(path: Sequence[str], language: str) -> list[str]:
    """A decision path in words, steps not worth showing left out."""
    return [said for code in path if (said := plain_step(str(code), language)) is not None]
