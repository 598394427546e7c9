"""Sentence splitting of mixed Chinese and English text, aware of English abbreviations."""

from __future__ import annotations

import re

# A sentence ends at CJK full stops (kept with the sentence), at English
# punctuation followed by space, or at a blank line.
_SENTENCE_END = re.compile(r"[。！？；!?;]|[.](?=\s)|\n\s*\n")
# Abbreviations whose full stop does not end a sentence ("the U.S. embassy", "Dr. Chen",
# "form No. 5", "e.g. a passport"): lower-cased, as the word before the space reads.
ABBREVIATIONS = frozenset(
    {
        "u.s.",
        "u.k.",
        "e.g.",
        "i.e.",
        "etc.",
        "dr.",
        "mr.",
        "mrs.",
        "ms.",
        "prof.",
        "no.",
        "nos.",
        "vs.",
        "st.",
        "jr.",
        "sr.",
        "approx.",
    }
)
_OPENERS = "([{\"'“‘"


def ends_with_abbreviation(text: str) -> bool:
    """True when `text` ends with an abbreviation's full stop (which ends no sentence)."""
    words = text.rsplit(None, 1)
    if not words:
        return False
    return words[-1].lstrip(_OPENERS).lower() in ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    """Sentences of mixed CJK/English text, whitespace-trimmed, empties dropped."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        if match.group(0) == "." and ends_with_abbreviation(text[start:end]):
            continue
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p and p.strip()]
