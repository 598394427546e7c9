"""Finding a model's quote in the passage it cites, through small copying slips.

A model answering across languages quotes the sentence of the passage each
claim rests on (prompt synth.v4). The quote counts only when the passage says
it: compared without case, width, spaces, punctuation or Chinese script, it is
a part of one of the passage's sentences (or of two in a row), or within a few
edits of one (`MAX_SLIP`: a dropped character, a 臺/台 variant), and a slip
never changes a number nor a yes/no: those must be the passage's own.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from textkit.claims import numbers
from textkit.polarity import negated
from textkit.scripts import plain
from textkit.sentences import split_sentences

# edits allowed per character of the quote (normalised): about one slip in twelve
MAX_SLIP = 0.08
MIN_QUOTE_CHARS = 4  # a shorter "quote" (a name, a number) rests on nothing
_NOT_KEPT = re.compile(r"[^0-9a-z\u3400-\u9fff\uf900-\ufaff]+")


def key(text: str) -> str:
    """`text` as compared: Simplified, lower-case, letters, digits and CJK only."""
    return _NOT_KEPT.sub("", plain(text))


@dataclass(frozen=True)
class Found:
    """Where a quote is: the passage sentence(s) holding it, and whether it is verbatim."""

    sentence: str
    exact: bool


def passage_sentences(passage: str) -> list[str]:
    """The passage's sentences, in order: sentence id `n.i` of a prompt is the i-th of
    source n's (graph.focus numbers them so, the claim judge resolves them so)."""
    return [s.strip() for s in split_sentences(passage) if s.strip()] or [passage.strip()]


def sentences_of(passage: str) -> list[str]:
    """The passage's sentences, and each with the next (a quote may run across two)."""
    parts = passage_sentences(passage)
    return parts + [f"{a} {b}" for a, b in itertools.pairwise(parts)]


def locate(quote: str, passage: str) -> Found | None:
    """The passage sentence the quote is taken from (None: the passage does not say it)."""
    wanted = key(quote)
    if len(wanted) < MIN_QUOTE_CHARS:
        return None
    candidates = [(s, key(s)) for s in sentences_of(passage)]
    for sentence, text in sorted(candidates, key=lambda c: len(c[1])):
        if wanted in text:
            return Found(sentence, True)
    bound = max(1, int(MAX_SLIP * len(wanted)))
    best: tuple[int, str] | None = None
    for sentence, text in candidates:
        if abs(len(text) - len(wanted)) > len(text):  # far too long to be a part of it
            continue
        cost = partial_distance(wanted, text, bound)
        if cost <= bound and (best is None or cost < best[0]):
            best = (cost, sentence)
    if best is None:
        return None
    sentence = best[1]
    # a slip never changes a figure or a yes/no: the quote's must be the sentence's
    if not numbers(quote) <= numbers(sentence) or negated(quote) != negated(sentence):
        return None
    return Found(sentence, False)


def partial_distance(needle: str, hay: str, bound: int) -> int:
    """The fewest edits turning `needle` into some part of `hay` (bound + 1 once past
    `bound`: the search stops there)."""
    previous = [0] * (len(hay) + 1)  # a match may start anywhere in hay
    for i, ch in enumerate(needle, 1):
        current = [i] + [0] * len(hay)
        for j, other in enumerate(hay, 1):
            current[j] = min(previous[j - 1] + (ch != other), previous[j] + 1, current[j - 1] + 1)
        if min(current) > bound:
            return bound + 1
        previous = current
    return min(previous)
