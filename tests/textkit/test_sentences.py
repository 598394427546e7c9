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
