"""Whether a new answer to an old question says something else, in substance.

Two answers to one question, one before a document changed and one after, rarely
share their words: a model rewords, a passage moves. What an asker acts on is the
figures (a fee, a date, a count: numbers read alike across scripts and spellings,
textkit.claims.numbers), the currency of an amount, the yes or no (polarity), the
links and form ids it gives, and whether it answers at all. `substantive_change`
compares those and nothing else, so a reworded answer with the same facts is no
change, whatever the document or the phrasing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from textkit.claims import numbers
from textkit.facts import currencies
from textkit.polarity import negated

_CITATION_MARK = re.compile(r"\s?\[\d+\]")  # "[2]" after a sentence: a footnote, not a figure
_LINK = re.compile(r"https?://[^\s<>()\[\]\"'）」]+", re.IGNORECASE)
# a form's id: letters then digits, joined by a dash or not ("A-12", "DS-160", "W8BEN")
_FORM_ID = re.compile(r"\b[A-Z]{1,5}-?\d{1,6}[A-Z]?\b")

NUMBER, AMOUNT, POLARITY, LINK, FORM, REFUSAL = (
    "number",
    "amount",
    "polarity",
    "link",
    "form",
    "refusal",
)


@dataclass(frozen=True)
class AnswerFacts:
    """What an answer commits to: the parts an asker acts on."""

    numbers: frozenset[str]
    currencies: frozenset[str]
    says_no: bool
    links: frozenset[str]
    forms: frozenset[str]


def answer_facts(answer: str) -> AnswerFacts:
    """The facts of `answer`: its numbers and dates (links, form ids and footnote marks
    read apart, so "https://x/2025" or "[2]" adds no figure), currencies, polarity, links
    and form ids."""
    text = _CITATION_MARK.sub("", answer)
    links = frozenset(link.rstrip(".,;:!?。，").lower() for link in _LINK.findall(text))
    text = _LINK.sub(" ", text)
    forms = frozenset(f.replace("-", "").upper() for f in _FORM_ID.findall(text))
    plain_text = _FORM_ID.sub(" ", text)
    return AnswerFacts(
        numbers=frozenset(numbers(plain_text)),
        currencies=frozenset(currencies(plain_text)),
        says_no=negated(plain_text),
        links=links,
        forms=forms,
    )


def substantive_change(old: str, new: str, new_refused: bool = False) -> str | None:
    """What differs in substance between an old answer and a new one (None: nothing):
    "refusal" (the new one no longer answers), "number" (a figure or a date the old one
    did not state), "amount" (an amount's currency), "polarity" (yes became no, or the
    reverse), "link" or "form" (one the old answer did not give)."""
    if new_refused:
        return REFUSAL
    before, after = answer_facts(old), answer_facts(new)
    # only what the new answer states that the old did not: a figure, link or form the
    # new answer merely leaves out (an extract cut shorter) contradicts nothing told
    if not after.numbers <= before.numbers:
        return NUMBER
    if before.currencies and after.currencies and before.currencies != after.currencies:
        return AMOUNT
    if before.says_no != after.says_no:
        return POLARITY
    if not after.links <= before.links:
        return LINK
    if not after.forms <= before.forms:
        return FORM
    return None
