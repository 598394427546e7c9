"""Negation: Chinese words that hold 不/无/非 without saying no, the negations that
contain those words, and English negations written with any apostrophe."""

from __future__ import annotations

import pytest

from graph.claim_checks import Passage, disagreement
from textkit.claims import negated


@pytest.mark.parametrize(
    "words",
    ["战争减少了不平等。", "这是不公平的安排。", "该项目存在无数困难。", "未成年人须由家长陪同。"],
)
def test_a_word_holding_a_negation_character_says_no_no(words: str) -> None:
    assert not negated(words)


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        ("考试成绩不公开。", "考试成绩公开。"),
        ("会议记录不公布。", "会议记录公布。"),
        ("这一天并非法定假日。", "这一天是法定假日。"),
        ("申请次数并无限制。", "申请次数有限制。"),
        ("本中心不利用您的资料作营销用途。", "本中心利用您的资料作营销用途。"),
        ("该地区无数据。", "该地区有数据。"),
        ("停车场不便宜。", "停车场便宜。"),
    ],
)
def test_a_negation_containing_such_a_word_still_flips_a_claim(passage: str, claim: str) -> None:
    assert negated(passage) and not negated(claim)
    assert disagreement(claim, Passage.of(passage)) == "polarity"


@pytest.mark.parametrize(
    "passage",
    [
        "Visitors can\u2019t park for free in the car park.",  # the typographic apostrophe
        "Visitors can\u02bct park for free in the car park.",  # the modifier letter
        "Visitors can't park for free in the car park.",
    ],
)
def test_a_negation_written_with_any_apostrophe_flips_a_claim(passage: str) -> None:
    assert negated(passage)
    claim = "Visitors park for free in the car park."
    assert disagreement(claim, Passage.of(passage)) == "polarity"
    assert not negated("It\u2019s free for visitors.")  # an apostrophe alone says no no
