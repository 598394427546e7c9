"""Sentence splitting of mixed Chinese and English text, aware of English abbreviations."""

from __future__ import annotations

import re

# A sentence ends at CJK full stops (kept with the sentence), at English
# punctuation followed by space, at a blank line, or before a list item's line
# ("- ", "* ", "• ", "1. ", "(a) "): an item is a statement of its own, not the
# continuation of the line above.
_SENTENCE_END = re.compile(
    r"[。！？；!?;]|[.](?=\s)|\n\s*\n|\n(?=[ \t]*(?:[-*•‧·]|\d{1,3}[.)、]|\([a-z0-9]\))[ \t])"
)
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
# "2." opening a numbered item ends no sentence
_LIST_NUMBER = re.compile(r"\s*\d{1,3}[.]")
# A name's initial ("The T. T. Tsui Gallery", "George W. Bush"): one capital letter and its
# full stop before a capitalised word that is no usual sentence opener ("Plan B. The
# office..." still ends there).
_INITIAL = re.compile(r"(?:^|[\s(\"'“‘])[A-Z][.]$")
_NAME_AFTER = re.compile(r"\s+([A-Z][A-Za-z'’-]*)")
_OPENER_WORDS = frozenset(
    [
        "The",
        "This",
        "That",
        "These",
        "Those",
        "It",
        "Its",
        "A",
        "An",
        "In",
        "On",
        "At",
        "If",
        "When",
        "We",
        "You",
        "He",
        "She",
        "They",
        "There",
        "Then",
        "For",
        "To",
        "Please",
        "Our",
        "Your",
        "Each",
        "All",
        "No",
        "Yes",
        "But",
        "And",
        "Or",
        "As",
        "After",
        "Before",
        "From",
    ]
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
        if match.group(0) == "." and (
            ends_with_abbreviation(text[start:end])
            or _LIST_NUMBER.fullmatch(text[start:end])
            or _is_initial(text, start, end)
        ):
            continue
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p and p.strip()]


def _is_initial(text: str, start: int, end: int) -> bool:
    """True when the full stop at `end` closes a name's initial, not a sentence."""
    if not _INITIAL.search(text[start:end]):
        return False
    following = _NAME_AFTER.match(text, end)
    return following is not None and following.group(1) not in _OPENER_WORDS


def ends_sentence(text: str) -> bool:
    """True when `text` ends with a sentence's closing punctuation (a heading or a list
    item does not), closing quotes and brackets aside."""
    return bool(_CLOSED.search(text.rstrip()))


_CLOSED = re.compile(r"[。！？；!?;.:：…][\"'”’)）」』]*$")
