"""Which sentence states the time a question asks: the day it names, else the hours."""

from __future__ import annotations

import pytest

from textkit.time_stated import days_named, states_hours, time_rank


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Open Monday to Friday from 8:30 to 17:30, and on Saturday mornings.", {0, 1, 2, 3, 4, 5}),
        ("It is closed on Sundays and public holidays.", {6}),
        ("Opening hours: Mon-Fri 9-5, Sat 9.00 to 12.00.", {0, 1, 2, 3, 4, 5}),
        ("Mon. - Fri.", {0, 1, 2, 3, 4}),
        ("Open Friday to Monday.", {4, 5, 6, 0}),
        ("Closed at weekends.", {5, 6}),
        ("周一至周五上午九点到下午五点", {0, 1, 2, 3, 4}),
        ("星期六几点开门？", {5}),
        ("禮拜天有開嗎？", {6}),
        ("工作日開放", {0, 1, 2, 3, 4}),
        ("周末休息", {5, 6}),
        # short forms are other words outside a range or an hour
        ("I sat down in the sun on my wedding day.", set()),
    ],
)
def test_the_days_a_text_names(text: str, days: set[int]) -> None:
    assert days_named(text) == days


@pytest.mark.parametrize(
    ("sentence", "hours"),
    [
        ("Open from 8:30 to 17:30.", True),
        ("The desk opens at 9 am.", True),
        ("上午九點開門", True),
        ("開放至晚上十時", True),
        ("It is closed on Sundays.", False),
        ("辦理需時兩小時", False),  # a duration, not an hour of the day
        ("開放時間請查詢網站", False),
    ],
)
def test_a_sentence_stating_hours(sentence: str, hours: bool) -> None:
    assert states_hours(sentence) is hours


def test_the_day_named_then_the_hours_then_days_alone() -> None:
    hours = "Open Monday to Friday from 8:30 to 17:30."
    closed = "It is closed on Sundays and public holidays."
    assert time_rank("When is the office open?", hours) < time_rank(
        "When is the office open?", closed
    )
    assert time_rank("Is it open on Sunday?", closed) == 0
    assert time_rank("Is it open on Sunday?", hours) == 1
    assert time_rank("星期三开门吗？", hours) == 0  # inside the range
