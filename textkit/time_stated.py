"""Which sentence states the time a question asks: the day it names, else the hours.

A question asking when a place is open ("When is the centre open?", 辦公時間？,
星期六几点开门) is answered by several sentences that all hold a time
(textkit.answer_type: a weekday or an hour). They do not answer it equally:

- a sentence naming the day the question names answers it ("closed on Sundays" to
  "Is it open on Sunday?"; "Saturday mornings from 9:00" to 星期六几点开门), a range
  or a list counting for every day in it ("Monday to Friday" and 星期一至五 name
  Wednesday, 周六日 Sunday), public holidays counting as a day;
- else, when the question asks when it is open (not when it is closed: "When is
  the centre closed?", 哪天休息), one stating hours of the day ("from 8:30 to
  17:30", 上午九時) answers, before one naming days alone ("It is closed on
  Sundays" says when it is not open).

`time_ranker` orders them so; text is read as `plain` gives it (lower case,
Simplified). Every pattern reads a bounded run of characters: linear on any input.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from textkit.scripts import plain

_PART_OF_DAY = r"(?:上午|下午|中午|晚上|早上|凌晨|傍晚)"
# an hour of the day: 8:30, 9 am, 9.00 to 12.00, noon, 9点, 九时, 上午九時; not 小时 (a
# duration), 时间 / 时候, 一点 ("a little") or 两点 ("two points") without a part of the day,
# "5 amps", "12.50 dollars"
_HOURS = re.compile(
    r"(?<![\d.:])\d{1,2}:\d{2}(?![\d:])|"
    r"(?<![\d.])\d{1,2}(?:\.\d{2})?\s*(?:[ap]m\b|[ap]\.m\b\.?)|"
    r"(?<![\d.])\d{1,2}\.\d{2}\s*(?:[-–~]|to\b|until\b|till\b)|"
    r"\b(?:at|from|until|till|before|after)\s+\d{1,2}\.\d{2}(?![\d.])|"
    r"\b(?:noon|midnight)\b|"
    r"(?<![\d小几])\d{1,2}\s*(?:点|时(?![间候]))|"
    rf"{_PART_OF_DAY}\s*[一二三四五六七八九十两]{{1,3}}\s*(?:点|时(?![间候]))|"
    r"(?<![一二三四五六七八九十两几小每])(?:[三四五六七八九]|十[一二]?)\s*(?:点|时(?![间候]))"
)
_EN_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ZH_DAYS = "一二三四五六"
HOLIDAYS = 7  # public holidays, counted as a day of their own
_FULL = r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b"
# a short form ("Mon", "Sat") is a day only beside another day or before an hour: "sat",
# "sun" and "wed" are other words too
_SHORT = r"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b\.?"
_JOIN = r"\s*(?:[-–~/,&]|to\b|through\b|and\b)\s*"
_EN_DAY = re.compile(
    rf"{_FULL}|\bweekdays?\b|\bweekends?\b|\b(?:public |bank |national )?holidays?\b|"
    rf"{_SHORT}(?={_JOIN}(?:{_SHORT}|{_FULL}))|(?<=[-–~/,&])\s?{_SHORT}|(?<=\bto ){_SHORT}|"
    rf"(?<=\band ){_SHORT}|{_SHORT}(?=\s*\d{{1,2}}(?:[:.]\d{{2}}|\s*[ap]\.?m\b))"
)
# 星期一至五, 周一、三、五, 周六日, 礼拜天; not 每周一次 ("once a week") or 一周三天
_ZH_DAY = re.compile(
    r"(?:星期|礼拜|(?<![每一两几这上下本])周)([一二三四五六日天末])"
    r"((?:[至到~、和及与]?[一二三四五六日天](?![次天个年周]))*)|"
    r"工作日|平日|公众假期|节假日|假日|假期"
)
_RANGE = re.compile(r"^\.?\s*(?:to|through|thru|till|until|-|–|—|~|至|到)\s*$")
_WEEKDAYS = frozenset(range(5))
_WEEKEND = frozenset({5, 6})
# asking when it is closed, not when it is open: hours do not answer it
_ASKS_CLOSED = re.compile(
    r"\b(?:closed|closure|closures|shut)\b|休息|休馆|公休|不开|没开|关闭|不营业|不办公"
)


def _zh_day(char: str) -> int:
    return 6 if char in "日天" else _ZH_DAYS.index(char)


def _en_days(word: str) -> frozenset[int]:
    word = word.strip(" .")
    if word.startswith("weekday"):
        return _WEEKDAYS
    if word.startswith("weekend"):
        return _WEEKEND
    if "holiday" in word:
        return frozenset({HOLIDAYS})
    return frozenset({_EN_DAYS.index(word[:3])})


def _zh_days(match: re.Match[str]) -> frozenset[int]:
    first, rest = match.group(1), match.group(2)
    if first is None:
        word = match.group(0)
        return _WEEKDAYS if word in ("工作日", "平日") else frozenset({HOLIDAYS})
    if first == "末":
        return _WEEKEND
    days = {_zh_day(first)}
    previous = _zh_day(first)
    for joint, char in re.findall(r"([至到~、和及与]?)([一二三四五六日天])", rest):
        day = _zh_day(char)
        if joint and joint in "至到~":
            days |= set(range(previous, day + 1)) if day >= previous else {previous, day}
        days.add(day)
        previous = day
    return frozenset(days)


def days_named(text: str) -> frozenset[int]:
    """The days of the week (Monday 0 … Sunday 6; public holidays `HOLIDAYS`) `text`
    names, a range's inner days included ("Monday to Friday", 周一至周五)."""
    text = plain(text)
    found = sorted(
        [(m.start(), m.end(), _zh_days(m)) for m in _ZH_DAY.finditer(text)]
        + [(m.start(), m.end(), _en_days(m.group(0))) for m in _EN_DAY.finditer(text)]
    )
    named: set[int] = set()
    for i, (begin, _, days) in enumerate(found):
        named |= days
        if not i or len(days) != 1 or not _RANGE.match(text[found[i - 1][1] : begin]):
            continue
        start, end = max(found[i - 1][2]), min(days)
        if max(start, end) < HOLIDAYS:
            named |= {d % 7 for d in range(start, end + (7 if end < start else 0) + 1)}
    return frozenset(named)


def states_hours(sentence: str) -> bool:
    """True when `sentence` states an hour of the day (8:30, 9 am, 九时, 上午九点)."""
    return bool(_HOURS.search(plain(sentence)))


def time_ranker(question: str) -> Callable[[str], int]:
    """How well a sentence states the time `question` asks, the question read once: 0 it
    names a day the question names; 1 it states hours (of a question asking when a place
    is open) or names no day asked (one asking when it is closed); 2 neither."""
    asked = days_named(question)
    closed = bool(_ASKS_CLOSED.search(plain(question)))

    def rank(sentence: str) -> int:
        if asked and asked & days_named(sentence):
            return 0
        return 1 if closed or states_hours(sentence) else 2

    return rank


def time_rank(question: str, sentence: str) -> int:
    """`time_ranker`'s rank of one sentence."""
    return time_ranker(question)(sentence)
