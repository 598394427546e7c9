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
