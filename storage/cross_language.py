"""Passages in another language than the question: marked, to be judged by meaning.

A question in English about a Chinese passage (or the reverse) shares almost
none of its words, so the keyword coverage that most of a hit's `score` rests
on is near 0 and the passage fell under the loosest threshold however well it
answered. Such a hit is marked `cross_language`; when the caller asks
(`other_languages`, as the answering graph does) the search's threshold does
not filter it and the caller judges it by the embedder's similarity instead
(graph.cross_language). Its `score` and the
fused order are untouched, so the leads of the other passages are too.

Traditional and Simplified Chinese are one language here: the keyword side
converts both to one script before cutting words.
"""

from __future__ import annotations

from collections.abc import Iterable

from storage.search_types import SearchHit
from textkit.scripts import EN, detect_language


def family(language: str | None) -> str:
    """ "en" or "zh": the languages whose words can match (either Chinese script is "zh")."""
    return EN if language == EN else "zh"


def crosses(question_language: str, passage_language: str | None) -> bool:
    """True when the question and the passage are written in different languages."""
    if not passage_language:
        return False
    return family(question_language) != family(passage_language)


def mark_cross_language(hits: Iterable[SearchHit], question: str) -> None:
    """Mark the hits written in another language than `question`."""
    asked = detect_language(question)
    for hit in hits:
        hit.cross_language = crosses(asked, hit.language)
