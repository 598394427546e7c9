"""Which sentence states the time a question asks: the day it names, else the hours."""

from __future__ import annotations

import pytest

from textkit.time_stated import days_named, states_hours, time_rank


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Open Monday to Friday from 8:30 to 17:30, and on Saturday mornings.", {0, 1, 2, 3, 4, 5}),
        ("It is closed on Sundays and public holidays.", {6, 7}),  # holidays: a day of their own
        ("逢星期一至五開放，周六日休息", {0, 1, 2, 3, 4, 5, 6}),
        ("周一、三、五開放", {0, 2, 4}),
        ("Open Mon, Wed and Fri.", {0, 2, 4}),
        ("Sat 9:00-12:00", {5}),
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
        ("I sat 3 exams in the sun, then left.", set()),
        ("Sun-beds are available from 8:00.", set()),
        ("每周一次，一周三天", set()),
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
        # a little, two points, a morning's length, amps and prices are no hours
        ("早一点来", False),
        ("请注意以下两点", False),
        ("需要一个上午", False),
        ("The charger draws 5 amps.", False),
        ("It costs 12.50 dollars.", False),
        ("Install version 3.10.", False),
        ("Open until 5 p.m", True),
        ("下午两点开门", True),
        ("Saturday 9.00 to 12.00", True),
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
    # asking when it is closed: the hours do not answer it before the closed days
    assert time_rank("When is the office closed?", hours) == time_rank(
        "When is the office closed?", closed
    )
    assert time_rank("Is it open on public holidays?", closed) == 0
    assert time_rank("公众假期有开吗？", closed) == 0
