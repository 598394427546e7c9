"""The paragraph a refusal offers FAQ questions in: written here, and found here.

The intro line (catalog `related_questions`, in the reply's language), then one
`- question` line each (graph.related_questions chooses them). A reply picking
one by its place (graph.offered_choice) and a platform showing them as buttons
(bot.core.offered_questions) read the same paragraph back.
"""

from __future__ import annotations

from collections.abc import Sequence

from textkit.catalog import LANGUAGES, say


def with_related(answer: str, questions: Sequence[str], language: str) -> str:
    """The refusal followed by the FAQ questions it offers instead, as a list."""
    lines = [answer, "", say("related_questions", language)]
    lines += [f"- {q}" for q in questions]
    return "\n".join(lines)


def split_offer(answer: str) -> tuple[str, list[str]]:
    """(the answer without its related-questions paragraph, that paragraph's questions);
    the last such paragraph (a refusal ends with it), and (answer, []) when none."""
    intros = {say("related_questions", language) for language in LANGUAGES}
    paragraphs = answer.split("\n\n")
    for at in reversed(range(len(paragraphs))):
        first, *lines = paragraphs[at].strip("\n").split("\n")
        if first.strip() in intros and lines and all(x.startswith("- ") for x in lines):
            rest = [p for i, p in enumerate(paragraphs) if i != at and p.strip()]
            return "\n\n".join(rest), [line.removeprefix("- ").strip() for line in lines]
    return answer, []
