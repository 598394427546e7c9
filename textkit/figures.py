"""Figures that measure or name something other than money.

A page may write a price with no currency ("Adults 20, children 10" under
"## Tickets", 成人 50), so a question asking a price is answered by a bare figure
too (textkit.answer_type's "bare_price"). A clock time, a stretch of time, a day
of the week, an ordinal, a number to dial, a street number or the number of a room, counter
or bus is no such price: "how much?" asked after the opening hours must not
quote "from 8:30 to 17:30" and "Phone enquiries: 1999".

The list is of what a figure is when it is not a price, not of the ways a price
is written (those have no end: "4.50 EUR", 港幣13.6, "120 a year", "2 per hour"):
a figure none of these patterns takes stays a possible price.
"""

from __future__ import annotations

import re

from textkit.scripts import plain

_ZH_DIGITS = "0-9零〇一二三四五六七八九十两"
# matched on `plain` text (lower case, Simplified)
_NOT_MONEY = re.compile(
    "|".join(
        (
            # a clock time: "8:30", "9am", "5.30 p.m.", "10 o'clock", 九时, 下午五点半
            r"\b\d{1,2}:\d{2}\b",
            r"\b\d{1,2}(?:[.:]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)",
            rf"[{_ZH_DIGITS}]+\s*[点时](?:\s*[{_ZH_DIGITS}]+\s*分|半)?",
            # a stretch of time: "30 minutes", "4 working days", 七个工作天. A word
            # between the figure and the unit is one of these: "2 per hour", "120 a
            # year" and "18 an hour" are prices by the hour or year
            r"\b\d+(?:[.,]\d+)?\s*(?:(?:working|business|calendar|school|full|more|extra|"
            r"further|consecutive|clear)\s+)?(?:second|minute|min|hour|hr|day|week|fortnight|"
            r"month|year)s?\b",
            rf"[{_ZH_DIGITS}几]+\s*(?:个\s*)?(?:工作|营业)?(?:秒|分钟|小时|天|日|周|星期|个月|月|年)",
            # a day of the week: 星期三, 周三, 礼拜三
            r"(?:星期|礼拜|周)[一二三四五六日天]",
            # a number to dial, after a word for it and up to two more ("Phone
            # enquiries: 1999", "call us on 2345 6789", 服务热线：1823)
            r"\b(?:call|dial|phone|telephone|tel|hotline|helpline|fax|sms|whatsapp)"
            r"\b(?:\s+[a-z]+){0,2}\s*[:：]?\s*\+?\d(?:[\d -]*\d)?",
            r"(?:拨打|致电|电话|热线|专线|传真)[^0-9]{0,6}?\+?\d[\d -]*",
            # an ordinal: "the 3rd floor", 第二期
            r"\b\d+(?:st|nd|rd|th)\b",
            rf"第[{_ZH_DIGITS}]+",
            # a number naming a place or a thing: "room 101", "counter 5", "bus 38"
            r"\b(?:room|rm|floor|level|counter|window|desk|gate|platform|bus|route|line|exit|"
            r"door|block|building|no\.?|number|suite|bay|lane|stop)\s*#?\d+[a-z]?\b",
            rf"[{_ZH_DIGITS}]+\s*(?:号|楼|层|室|座|栋|路|巷|弄|街)",
        )
    )
)
# a street number: "1 Harbour Road", "221B Baker Street" (the sentence's own case)
_STREET_NUMBER = re.compile(
    r"\b\d+[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:Road|Rd|Street|St|Avenue|Ave|Lane|Drive|"
    r"Dr|Boulevard|Blvd|Way|Square|Place|Court|Close|Crescent|Terrace|Parade|Highway)\b"
)


def without_other_figures(sentence: str) -> str:
    """`sentence` (`plain`) without its figures that are no sum of money: clock times,
    stretches of time, weekdays, ordinals, numbers to dial, street, room and bus numbers."""
    return _NOT_MONEY.sub(" ", plain(_STREET_NUMBER.sub(" ", sentence)))
