"""A claim that copies its passage word for word: clauses in a row, whole.

A small model often copies rather than rewords, and copies across a line break
or two sentences while citing one of them. Such a copy says what the passage
says in the passage's own order, so the word-by-word checks
(graph.claim_checks) need not place its words, and the judge
(graph.claim_judge) may rest it on the cited sentence and its neighbour.

Words are compared as `copy_words` cuts them: spaces, punctuation and line
breaks between words are set aside ("{} \\; | grep" copied as "{} \\ | grep"),
while a figure keeps the separators inside it, so "1,300" is not "13,00" nor
"2.5" 25.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from textkit.scripts import plain

_COPY_WORD = re.compile(r"[^\W_]+(?:[.,:/'’-][^\W_]+)*")

Words = tuple[str, ...]


def copy_words(text: str) -> Words:
    """`text`'s words as a copy is compared (`plain`; a word or figure keeps the separators
    inside it: "10:30", "2.5", "1,300", "command-line")."""
    return tuple(_COPY_WORD.findall(plain(text)))


def copies_clauses(claim: Words, parts: Sequence[Words]) -> bool:
    """True when the claim's words are those of two clauses or more of `parts` (a
    passage's clauses, each as `copy_words`) in a row, whole. A command line and the
    sentence after it copied as one line, their line break dropped, otherwise had their
    words placed in one clause, and a name of the other read as another thing's."""
    if not claim:
        return False
    for start, first in enumerate(parts):
        if not first or claim[: len(first)] != first:
            continue
        run = first
        for part in parts[start + 1 :]:
            run += part
            if run == claim:
                return True
            if claim[: len(run)] != run:
                break
    return False


def holds_copy(text: Words, claim: Words) -> bool:
    """True when the claim's words stand in `text`'s in a row."""
    wanted = " ".join(claim)
    return bool(wanted) and f" {wanted} " in f" {' '.join(text)} "
