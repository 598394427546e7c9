"""Which sentence states the time a question asks: the day it names, else the hours.

A question asking when a place is open ("When is the centre open?", 辦公時間？,
星期六几点开门) is answered by several sentences that all hold a time
(textkit.answer_type: a weekday or an hour). They do not answer it equally:

- a sentence naming the day the question names answers it ("closed on Sundays" to
  "Is it open on Sunday?"; "Saturday mornings from 9:00" to 星期六几点开门), a range
  counting for the days inside it ("Monday to Friday" names Wednesday);
- else one stating hours of the day ("from 8:30 to 17:30", 上午九点) answers
  "when", before one naming days alone ("It is closed on Sundays" says when it is
  not open).

`time_rank` orders them so; text is read as `plain` gives it (lower case,
Simplified).
"""

from __future__ import annotations

import re

from textkit.scripts import plain

# an hour of the day: 8:30, 9 am, noon, 九点, 上午 (not 小时, a duration: 时 right after
# the figure; nor 时间 / 时候)
_HOURS = re.compile(
    r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)|\b(?:noon|midnight)\b|"
    r"(?<![小几])[0-9一二三四五六七八九十两]+\s*(?:点|时(?![间候]))|上午|下午|中午|晚上|早上"
)
_EN_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ZH_DAYS = "一二三四五六"
_EN_ABBREVIATED = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)"
# days by their full names; "sat", "sun" and "wed" are other words too, so a short form
# only in a range or before an hour ("Mon-Fri 9-5", "Sat 9.00 to 12.00", "Thu to Sat")
_DAY = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\bweekdays?\b|\bweekends?\b|"
    rf"\b{_EN_ABBREVIATED}\b\.?(?=\s*(?:[-–~/,]|to\b|through\b|\d))|"
    rf"(?:(?<=[-–~/])|(?<=[-–~/] )|(?<=\bto )){_EN_ABBREVIATED}\b|"
    r"(?:星期|礼拜|周)[一二三四五六日天末]|工作日|平日"
)
# "Monday to Friday", 周一至周五, "Mon-Fri": the days between count too
_RANGE = re.compile(r"^\.?\s*(?:to|through|thru|till|until|-|–|—|~|至|到)\s*$")
_WEEKDAYS = frozenset(range(5))
_WEEKEND = frozenset({5, 6})


def _days(match: re.Match[str]) -> frozenset[int]:
    word = match.group(0)
    if word.startswith("weekday") or word in ("工作日", "平日"):
        return _WEEKDAYS
    if word.startswith("weekend") or word.endswith("末"):
        return _WEEKEND
    if word[-1] in "日天":
        return frozenset({6})
    if word[-1] in _ZH_DAYS:
        return frozenset({_ZH_DAYS.index(word[-1])})
    return frozenset({_EN_DAYS.index(word[:3])})


def days_named(text: str) -> frozenset[int]:
    """The days of the week (Monday 0 … Sunday 6) `text` names, a range's inner days
    included."""
    text = plain(text)
    matches = list(_DAY.finditer(text))
    named: set[int] = set()
    for i, match in enumerate(matches):
        days = _days(match)
        named |= days
        if i and len(days) == 1 and _RANGE.match(text[matches[i - 1].end() : match.start()]):
            start, end = min(_days(matches[i - 1])), min(days)
            named |= {d % 7 for d in range(start, end + (7 if end < start else 0) + 1)}
    return frozenset(named)


def states_hours(sentence: str) -> bool:
    """True when `sentence` states an hour of the day (8:30, 9 am, 九点, 上午)."""
    return bool(_HOURS.search(plain(sentence)))


def time_rank(question: str, sentence: str) -> int:
    """How well `sentence` states the time `question` asks: 0 it names a day the
    question names, 1 it states hours, 2 neither (it names other days)."""
    asked = days_named(question)
    if asked and asked & days_named(sentence):
        return 0
    return 1 if states_hours(sentence) else 2
