"""Figures that measure or name something other than money.

A page may write a price with no currency ("Adults 20, children 10" under
"## Tickets", 成人 50), so a question asking a price is answered by a bare figure
too (textkit.answer_type's "maybe_price": a figure that may be one). A clock time
or a place's hours, a stretch of time, a weekday, a date, an ordinal, a number to
dial, a street or room number, an age or a share is no such price: "how much?"
asked after the opening hours must not quote "from 8:30 to 17:30", "open 9 to 5"
or "Phone enquiries: 1999".

The list is of what a figure is when it is not a price, not of the ways a price
is written (those have no end: "4.50 EUR", 港幣13.6, "120 a year", "2 per hour"):
a figure none of these patterns takes stays a possible price.
"""

from __future__ import annotations

import re

from textkit.scripts import plain

_ZH_DIGITS = "0-9零〇一二三四五六七八九十两"
# a Chinese figure starts where no digit is before it: a long run is tried once, not
# from each of its digits
_ZH_FIGURE = rf"(?<![{_ZH_DIGITS}几])[{_ZH_DIGITS}几]+"
_EN_NUMBER = (
    r"(?:\d+(?:[.,]\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|fifteen|twenty|thirty|forty|sixty|ninety|a few|several)"
)
_RANGE_TO = r"\s*(?:-|–|to|or|until|till)\s*"
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
# a number to dial: three digits at least, its groups joined by spaces, hyphens or a
# bracketed area code, and no price's word after it ("Phone consultation 200 per session")
_DIALLED_NUMBER = r"\+?\(?\d[\d)]*(?:[ -]?\(?\d+\)?)*"
_NOT_PRICED = r"(?!\s*(?:per|each|a|an|/|dollars?|元|块))"
# matched on `plain` text (lower case, Simplified)
_NOT_MONEY = re.compile(
    "|".join(
        (
            # a clock time: "8:30", "9am", "5.30 p.m.", "10 o'clock", 九时, 下午五点半
            r"\b\d{1,2}:\d{2}\b",
            r"\b\d{1,2}(?:[.:]\d{2})?\s*(?:(?:am|pm)\b|a\.m\.|p\.m\.|o'clock)",
            rf"{_ZH_FIGURE}\s*[点时](?:\s*[{_ZH_DIGITS}]+\s*分|半)?",
            # a stretch of time, or a range of one: "30 minutes", "4 working days", "2-3
            # weeks", "twelve months", 七个工作天, 7 至 10 个工作天. A word between the
            # figure and the unit is one of these: "2 per hour", "120 a year" and "18
            # an hour" are prices by the hour or year
            rf"\b{_EN_NUMBER}(?:{_RANGE_TO}{_EN_NUMBER})?\s*(?:(?:working|business|"
            r"calendar|school|full|more|extra|further|consecutive|clear)\s+)?(?:second|sec|"
            r"minute|min|hour|hr|day|week|wk|fortnight|month|year|yr)s?\b",
            rf"{_ZH_FIGURE}(?:\s*(?:至|到|-|–|~)\s*[{_ZH_DIGITS}]+)?\s*(?:个\s*)?"
            r"(?:工作|营业)?(?:秒|分钟|小时|天|日(?![圆元])|周|星期|个月|月|年)",
            # a day of the week: 星期三, 周三, 礼拜三
            r"(?:星期|礼拜|周)[一二三四五六日天]",
            # a date: "25 december", "1 april", "30/06/2025", 6月30日
            rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b",
            rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b",
            r"\b\d{1,4}[/.]\d{1,2}[/.]\d{2,4}\b",
            # a number to dial: after the verb ("call 311", "ring us on 2345 6789"), or
            # after a word for the line and a colon or "no." ("Tel.: 1823", "Phone
            # enquiries: 1999", "Fax no. 2345 6789", 查询：1823); "hotline" needs neither
            rf"\b(?:call|dial|ring|phone|text)(?:\s+us)?(?:\s+(?:on|at))?\s+"
            rf"(?=(?:\+?\(?\d[\s()-]*){{3}}){_DIALLED_NUMBER}{_NOT_PRICED}",
            rf"\b(?:tel|telephone|phone|fax|enquiries|inquiries|contact|whatsapp|sms)\.?"
            rf"(?:\s+[a-z]+\.?){{0,2}}(?:\s*[:：]|(?<=\bno\.)|(?<=\bnumber))\s*"
            rf"(?=(?:\+?\(?\d[\s()-]*){{3}}){_DIALLED_NUMBER}{_NOT_PRICED}",
            rf"\b(?:hotline|helpline)(?:\s+[a-z]+){{0,2}}\s*[:：]?\s*"
            rf"(?=(?:\+?\(?\d[\s()-]*){{3}}){_DIALLED_NUMBER}",
            r"(?:拨打|致电|热线|专线|(?:电话|传真|咨询|查询)(?:号码)?\s*[:：])[^0-9]{0,6}?"
            r"\+?\d[\d -]{2,}",
            # an ordinal: "the 3rd floor", 第二期
            r"\b\d+(?:st|nd|rd|th)\b",
            rf"第[{_ZH_DIGITS}]+",
            # a number naming a place: "room 101", "counter 5", "exit a2", 3号, 5楼
            r"\b(?:room|rm\.?|floor|level|counter|window|desk|gate|platform|exit|door|block|"
            r"building|no\.?|number|suite|bay)\s*#?[a-z]?\d+[a-z]?\b",
            rf"{_ZH_FIGURE}\s*(?:号|楼|层|室|座|栋|路|巷|弄|街)",
            # a bus or a line taken ("take bus 38", "the 38 bus"; "Fares: bus 5" is a fare)
            r"\b(?:take|taking|took|by|on|catch|board)\s+(?:the\s+)?(?:bus|route|line|tram|"
            r"minibus)\s*(?:no\.?\s*)?\d+[a-z]?\b|\b\d+[a-z]?\s+(?:bus|tram|minibus)\b",
            # an age, a share: "children under 12", "aged 65+", 12岁以下, "85%"
            r"\b(?:under|over|aged?|below|above)\s+\d+\+?",
            rf"{_ZH_FIGURE}\s*(?:周岁|岁)",
            rf"(?<![\d.])\d+(?:\.\d+)?\s*%|百分之[{_ZH_DIGITS}]+",
        )
    )
)
# the hours of a place, written as a range of hours ("open 9 to 5", "Mon-Fri 9-5",
# "9.00 to 17.00"): only in a sentence saying when it opens, where two small numbers
# joined by "to" are no price
_HOURS_WORD = re.compile(
    r"\b(?:open|opens|opening|close|closes|closed|closing|hours|daily)\b|开放|营业|办公|开门|关门"
)
_HOURS_RANGE = re.compile(
    r"\b(?:[01]?\d|2[0-4])(?:[.:]\d{2})?\s*(?:-|–|to|until|till)\s*(?:[01]?\d|2[0-4])"
    r"(?:[.:]\d{2})?\b"
)
# a street number: "1 Harbour Road", "221B Baker Street" (the sentence's own case)
_STREET_NUMBER = re.compile(
    r"\b\d+[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:Road|Rd|Street|St|Avenue|Ave|Lane|Drive|"
    r"Dr|Boulevard|Blvd|Way|Square|Place|Court|Close|Crescent|Terrace|Parade|Highway)\b"
)


def without_other_figures(sentence: str) -> str:
    """`sentence` (`plain`) without its figures that are no sum of money: clock times and
    opening hours, stretches of time, weekdays, dates, ordinals, numbers to dial, street
    and room numbers, ages and shares."""
    text = _NOT_MONEY.sub(" ", plain(_STREET_NUMBER.sub(" ", sentence)))
    return _HOURS_RANGE.sub(" ", text) if _HOURS_WORD.search(text) else text
