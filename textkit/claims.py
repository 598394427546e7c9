"""What a claim commits to beyond its words: the numbers it states.

Word overlap cannot tell $100 from $130 when both are in the passage, nor 1,300 from
一千三百 across languages. Numbers, dates, ordinals and financial numerals are brought to
one writing here so that a claim's figures can be compared with its sentence's (see
graph.citations); its yes/no is textkit.polarity's.
"""

from __future__ import annotations

import re

from textkit.scripts import plain

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Chinese numerals: a run of them reads as one number ("一千三百" is 1300)
_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_NUMERAL_RUN = re.compile(
    r"[零〇一二两三四五六七八九十百千万亿]{2,}|[一二两三四五六七八九十](?=[元年月日天个人岁次张册本周号位项份件条间页])"
    # ("一" is "a" before these: "一点" is also "a little")
    r"|[二两三四五六七八九十](?=[点时分秒小倍楼层题米只台辆名户成折星礼])"
    r"|(?<=第)[一二两三四五六七八九十]"  # an ordinal: 第二 is 2 ("Terminal 2")
)
# English ordinal words: no number of their own ("first, fill in the form"), but the
# number a Chinese ordinal states (第二 is 2) when a claim translates one
_EN_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
_EN_ORDINAL = re.compile(r"\b(" + "|".join(_EN_ORDINALS) + r")\b")
# the unit of time: "seconds", "per second", "wait a second", "a second later"
_TIME_SECOND = re.compile(
    r"\bseconds\b|\bper second\b|\b(?:a|one|each) second\b(?=\s*(?:[.,;:!?)]|$|later\b|ago\b|or\b))"
)
_ZH_ORDINAL = re.compile(
    r"第\s*(\d+(?:,\d{3})*|[零〇一二两兩三四五六七八九十百千壹贰貳叁參肆伍陆陸柒捌玖拾佰仟]+)"
)
# "May" is a month when capitalised within a sentence ("filed in May"), a verb otherwise
_MAY = re.compile(r"(?<=\w )May\b")
_ONE_UNIT = re.compile(r"\bone-(?:year|month|week|day|hour|time|off|way)")
# financial numerals (壹仟參佰 is 一千三百; the text is Simplified by `plain`)
_ZH_FINANCIAL = str.maketrans("壹贰貳叁参肆伍陆柒捌玖拾佰仟", "一二二三三四五六七八九十百千")
# English number words, and month names (a date's month is one of its numbers)
_EN_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90, "one": 1,
}  # fmt: skip
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_SCALE_OF = {**_EN_SCALES, "billion": 1_000_000_000, "万": 10_000, "亿": 100_000_000}
_SCALED = re.compile(r"(\d{1,12}(?:[.,]\d+)?)\s*(hundred|thousand|million|billion|万|亿)")
_EN_NUMBER_RUN = re.compile(
    r"\b(?:(?:" + "|".join([*_EN_WORDS, *_EN_SCALES]) + r")(?:[\s-]+(?:and\s+)?|\b))+",
)
# a month name is its number ("may" is left out: "you may apply" is no date)
_MONTHS = {
    "january": "1", "february": "2", "march": "3", "april": "4", "june": "6", "july": "7",
    "august": "8", "september": "9", "october": "10", "november": "11", "december": "12",
}  # fmt: skip
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
# short month names beside a day or a year ("30 May 2025", "Jun 30"): "may" alone is a verb
# — "may" after a day only where it is a date ("on 5 may", "from 5 may", "5 may 2025"), not
# before the verb it helps ("children under 12 may travel free", "18 may, with an adult, …")
_SHORT_MONTHS = {m[:3]: n for m, n in _MONTHS.items()} | {"sept": "9", "may": "5"}
_AFTER_DAY = "|".join(m for m in _SHORT_MONTHS if m != "may")
_SHORT_MONTH = re.compile(
    r"\b(" + "|".join(_SHORT_MONTHS) + r")\.?(?= \d)|(?<=\d )(" + _AFTER_DAY + r")\b"
)
_MAY_DAY = re.compile(
    r"\b(?:on|from|by|until|till|before|after|since|of|between)\s+\d{1,2}(?:st|nd|rd|th)?"
    r"\s+may\b|\b\d{1,2}\s+may\s+\d{4}\b"
)


def numbers(text: str) -> set[str]:
    """The numbers in `text`, written alike: "1,300", "1300", "1,300.00", "一千三百" and
    "thirteen hundred" are one; "2.50" is "2.5"; a month name is its number ("June": 6)."""
    norm = plain(text).translate(_ZH_FINANCIAL)
    out = set()
    if _MAY.search(text):
        out.add("5")
    if _ONE_UNIT.search(norm):  # "a one-year warranty" states a figure
        out.add("1")
    for amount, scale in _SCALED.findall(norm):  # "3 million", "1.5 thousand", "3亿"
        value = float(amount.replace(",", "")) * _SCALE_OF[scale]
        out.add(str(value).removesuffix(".0"))
    norm = _SCALED.sub(" ", norm)  # read once: not "3" and "million" as well
    for raw in _NUMBER.findall(norm):
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw):  # thousands separators
            raw = raw.replace(",", "")
        raw = raw.rstrip(".,")
        if len(raw) <= 30 and re.fullmatch(r"\d+(?:\.\d+)?", raw):  # (a serial stays text)
            raw = str(float(raw)).removesuffix(".0") if "." in raw else str(int(raw))
        out.add(raw)
    out |= {str(n) for n in map(_zh_number, _ZH_NUMERAL_RUN.findall(norm)) if n is not None}
    for run in _EN_NUMBER_RUN.findall(norm):
        words = [w for w in re.split(r"[\s-]+", run.strip()) if w and w != "and"]
        if words and words != ["one"]:  # "one of the forms" is no figure
            out.add(str(_en_number(words)))
    out |= {_MONTHS[m] for m in _MONTH.findall(norm)}
    out |= {_SHORT_MONTHS[a or b] for a, b in _SHORT_MONTH.findall(norm)}
    if _MAY_DAY.search(norm):
        out.add("5")
    return out


def chinese_ordinals(text: str) -> tuple[str, set[str]]:
    """The text with its Chinese ordinals (第二大, 第2名) blanked, and their numbers
    written as `numbers` writes them: `numbers` reads 第二 as 2, while the English
    ordinal word it may be translated from ("second") is no number."""
    found: set[str] = set()
    for written in _ZH_ORDINAL.findall(text):
        run = plain(written).translate(_ZH_FINANCIAL).replace(",", "")
        value = int(run) if run.isdigit() else _zh_number(run)
        if value is not None:
            found.add(str(value))
    # blanked in the text as written: `numbers` reads a capitalised "May" as a month
    return _ZH_ORDINAL.sub(" ", text), found


def ordinal_words(text: str) -> set[str]:
    """The numbers English ordinal words state ("second-largest", "ranks third": 2, 3;
    "wait a second", "30 seconds" none)."""
    norm = _TIME_SECOND.sub(" ", plain(text))
    return {str(_EN_ORDINALS[w]) for w in _EN_ORDINAL.findall(norm)}


def chinese_number(run: str) -> int | None:
    """A run of Chinese numerals as a number ("一千三百": 1300, "两": 2; None when `run`
    holds anything else)."""
    if not run or any(
        ch not in _ZH_DIGITS and ch not in _ZH_UNITS and ch not in "万亿" for ch in run
    ):
        return None
    return _zh_number(run)


def _zh_number(run: str) -> int | None:
    """A run of Chinese numerals as a number (None when it is not one)."""
    if all(ch in _ZH_DIGITS for ch in run):  # digits in a row ("二〇二五"): read as written
        return int("".join(str(_ZH_DIGITS[c]) for c in run)) if len(run) <= 30 else None
    total, big, section, digit = 0, 0, 0, None
    for ch in run:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            section += (1 if digit is None else digit) * _ZH_UNITS[ch]
            digit = None
        elif ch == "万":
            total += max(section + (digit or 0), 1) * 10_000
            section, digit = 0, None
        elif ch == "亿":
            big += max(total + section + (digit or 0), 1) * 100_000_000
            total, section, digit = 0, 0, None
    return big + total + section + (digit or 0)


def _en_number(words: list[str]) -> int:
    total, current = 0, 0
    for word in words:
        if word in _EN_WORDS:
            current += _EN_WORDS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _EN_SCALES[word]
            current = 0
    return total + current
