"""Sentence splitting."""

from __future__ import annotations

from textkit.sentences import split_sentences


def test_split_sentences_cjk_and_english() -> None:
    assert split_sentences("第一句。第二句！Third one. Fourth?") == [
        "第一句。",
        "第二句！",
        "Third one.",
        "Fourth?",
    ]


def test_abbreviations_do_not_end_a_sentence() -> None:
    text = (
        "The U.S. embassy issues visas. Bring an ID, e.g. a passport, i.e. a photo card. "
        "Dr. Chen and Mr. Lee sign form No. 5, receipts etc. for you. 請帶身分證。Done!"
    )
    assert split_sentences(text) == [
        "The U.S. embassy issues visas.",
        "Bring an ID, e.g. a passport, i.e. a photo card.",
        "Dr. Chen and Mr. Lee sign form No. 5, receipts etc. for you.",
        "請帶身分證。",
        "Done!",
    ]


def test_list_items_are_sentences_of_their_own() -> None:
    text = "Bring:\n- your old passport\n- one photo (4.5 cm).\n1. Fill in the form\n2. Pay"
    assert split_sentences(text) == [
        "Bring:",
        "- your old passport",
        "- one photo (4.5 cm).",
        "1. Fill in the form",
        "2. Pay",
    ]
    # a line wrapped in the middle of a sentence is not an item
    assert split_sentences("one colour photo taken in the last\nsix months.") == [
        "one colour photo taken in the last\nsix months."
    ]


def test_a_names_initials_end_no_sentence() -> None:
    text = "The T. T. Tsui Gallery opened in 1991. George W. Bush visited it. Use Plan B. The rest."
    assert split_sentences(text) == [
        "The T. T. Tsui Gallery opened in 1991.",
        "George W. Bush visited it.",
        "Use Plan B.",
        "The rest.",
    ]
