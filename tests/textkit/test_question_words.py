"""A message that asks by its words alone, without a question mark or question word."""

from __future__ import annotations

import pytest

from textkit.question_words import asks_number, is_phrase


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("護照更新費用", True),
        ("更新護照要付的費用", True),
        ("passport renewal fee", True),
        ("換發護照要多少錢？", False),  # a question mark
        ("護照更新要帶什麼", False),  # a question word (什么) in either script
        ("How much is it", False),
        ("ＷＨＡＴ time", False),  # full-width letters read as the word they spell
    ],
)
def test_a_phrase_has_no_question_mark_and_no_question_word(text: str, phrase: bool) -> None:
    assert is_phrase(text) is phrase


@pytest.mark.parametrize(
    ("question", "number"),
    [
        ("When does the permit expire?", True),
        ("How much is the fee?", True),
        ("停车证什么时候到期？", True),
        # a condition's "when": the passage answering what to do need hold no figure
        ("What should I do when I lose my passport?", False),
        ("Is there anything to bring when I renew?", False),
    ],
)
def test_a_number_is_asked_by_the_question_not_by_its_condition(
    question: str, number: bool
) -> None:
    assert asks_number(question) is number
