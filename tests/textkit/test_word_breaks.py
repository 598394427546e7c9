"""Spaces put back into English words OCR ran together, and nothing else touched."""

from __future__ import annotations

import pytest

from textkit.word_breaks import restore_spaces


@pytest.mark.parametrize(
    ("read", "meant"),
    [
        (
            "WheredidAristotlebelievethenaturalplaceofthings?",
            "Where did Aristotle believe the natural place of things?",
        ),
        (
            "Theadultpassportrenewalcosts1,300dollars",
            "The adult passport renewal costs 1,300 dollars",
        ),
        (
            "HowmuchdoesitcosttorenewapassportandwhatdocumentsdoIneed",
            "How much does it cost to renew a passport and what documents do I need",
        ),
        ("passportrenewal", "passport renewal"),
    ],
)
def test_run_together_words_are_split(read: str, meant: str) -> None:
    assert restore_spaces(read) == meant


@pytest.mark.parametrize(
    "text",
    [
        "internationalization and characteristically",  # long words, not runs
        "photosynthesis occurs",
        "The City Service Centre at 1 Harbour Road",  # already spaced
        "Reference A1234567 issued 2025-06-30",  # an identifier stays whole
        "護照換發要多少錢？",  # Chinese has no spaces to restore
    ],
)
def test_words_and_identifiers_are_left_alone(text: str) -> None:
    assert restore_spaces(text) == text
