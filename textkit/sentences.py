"""Sentence splitting of mixed Chinese and English text."""

from __future__ import annotations

import re

# A sentence ends at CJK full stops (kept with the sentence), at English
# punctuation followed by space, or at a blank line.
_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])|(?<=[.!?])\s+|\n\s*\n")


def split_sentences(text: str) -> list[str]:
    """Sentences of mixed CJK/English text, whitespace-trimmed, empties dropped."""
    pieces = _SENTENCE_END.split(text)
    return [p.strip() for p in pieces if p and p.strip()]
