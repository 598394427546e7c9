"""Whether a duration is how long a thing stays valid, asked or stated."""

from __future__ import annotations

import pytest

from textkit.validity import names_validity


@pytest.mark.parametrize(
    ("text", "validity"),
    [
        ("How long is a parking permit valid?", True),
        ("When does my passport expire?", True),
        ("停車許可證有效期多久？", True),
        ("每張許可證每年收費新臺幣 1,200 元，有效期一年，期滿前三十天可以續辦。", True),
        ("The card is valid for 12 months.", True),
        ("How long does a passport last?", True),
        ("A permit lasts twelve months.", True),
        ("How long does it take to get a parking permit?", False),
        ("When is the last day to apply, and how long does it take?", False),
        ("申請後約七個工作天核發。", False),
        ("借期二十一天", False),
        ("Processing takes 4 working days.", False),
    ],
)
def test_the_words_of_validity(text: str, validity: bool) -> None:
    assert names_validity(text) is validity
