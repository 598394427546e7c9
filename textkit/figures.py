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
# a figure's edges where Chinese runs into it (上午9:00: no word boundary there)
_START = r"(?<![\d.])"
_END = r"(?![\d])"
_EN_NUMBER = (
    r"(?:\d+(?:[.,]\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|"
    r"forty|fifty|sixty|ninety|a few|several)"
)
_RANGE_TO = r"\s*(?:-|–|to|or|until|till)\s*"
_UNITS = r"(?:second|sec|minute|min|hour|hr|day|week|wk|fortnight|month|year|yr)"
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_CLOCK = r"\d{1,2}(?:[.:]\d{2})?"
_MERIDIEM = r"\s*(?:(?:am|pm)\b|a\.m\.|p\.m\.)"
# a number to dial: three digits at least, its groups joined by spaces, hyphens or a
# bracketed area code, and no price's word after it ("Phone consultation 200 per session")
_DIALLED_NUMBER = r"\+?\(?\d[\d)]*+(?:[ -]?\(?\d++\)?)*+"  # possessive: no backtracking
_NOT_PRICED = r"(?!\s*(?:per|each|a|an|/|dollars?|元|块))"
_THREE_DIGITS = r"(?=(?:\+?\(?\d[\s()-]*){3})"
# matched on `plain` text (lower case, Simplified)
_NOT_MONEY = re.compile(
    "|".join(
        (
            # a clock time, or a range of hours with am/pm at one end: "8:30", "9am",
            # "5.30 p.m.", "9-5pm", 上午9:00, "10 o'clock", 九时, 下午五点半
            rf"{_START}{_CLOCK}{_MERIDIEM}?{_RANGE_TO}{_CLOCK}{_MERIDIEM}",
            rf"{_START}{_CLOCK}{_MERIDIEM}{_RANGE_TO}{_CLOCK}{_MERIDIEM}?",
            rf"{_START}{_CLOCK}{_MERIDIEM}",
            rf"{_START}\d{{1,2}}:\d{{2}}{_END}",
            r"\b\d{1,2}\s*o'clock",
            rf"{_ZH_FIGURE}\s*[点时](?:\s*[{_ZH_DIGITS}]+\s*分|半)?",
            # the hour a place opens or closes at: "opens at 10", "last admission at 4"
            rf"\b(?:opens?|closes?|opening|closing|admission|entry)\s+(?:at|from|until|till)"
            rf"\s+{_CLOCK}\b",
            # a stretch of time, or a range of one: "30 minutes", "4 working days", "2-3
            # weeks", "twelve months", "a 30-minute session", 七个工作天, 7 至 10 个工作天.
            # A word between the figure and the unit is one of these: "2 per hour", "120
            # a year" and "18 an hour" are prices by the hour or year
            rf"\b{_EN_NUMBER}(?:{_RANGE_TO}{_EN_NUMBER})?\s*(?:(?:working|business|"
            r"calendar|school|full|more|extra|further|consecutive|clear)\s+)?"
            rf"{_UNITS}s?\b",
            rf"\b\d+-{_UNITS}\b|\bhalf\s+an?\s+(?:hour|day)\b|\b24/7\b",
            rf"{_ZH_FIGURE}(?:\s*(?:至|到|-|–|~)\s*[{_ZH_DIGITS}]+)?\s*(?:个\s*)?"
            r"(?:工作|营业)?(?:秒|分钟|小时|天|日(?![圆元])|周|星期|个月|月|年)",
            # a day of the week: 星期三, 周三, 礼拜三
            r"(?:星期|礼拜|周)[一二三四五六日天]",
            # a date, with its year: "25 december", "1 april 2025", "30/06/2025", "in 2025"
            rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b(?:,?\s+\d{{4}}\b)?",
            rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?",
            r"\b\d{1,4}[/.]\d{1,2}[/.]\d{2,4}\b",
            r"\b(?:in|since|from|by|until|till|before|after|of)\s+(?:1[89]|20)\d{2}\b",
            # a number to dial: after the verb ("call 311", "ring us on 2345 6789"), or
            # after a word for the line and a colon or "no." ("Tel.: 1823", "Phone
            # enquiries: 1999", "Fax no. 2345 6789", 查询：1823); "hotline" needs neither
            rf"\b(?:call|dial|ring|phone|text)(?:\s+us)?(?:\s+(?:on|at))?\s+"
            rf"{_THREE_DIGITS}{_DIALLED_NUMBER}{_NOT_PRICED}",
            rf"\b(?:tel|telephone|phone|fax|enquiries|inquiries|contact|whatsapp|sms)\.?"
            r"(?:\s+(?:no\.?|number|enquiries|inquiries|hotline|line|us))?\s*(?:[:：]|"
            rf"(?<=\bno\.)|(?<=\bnumber))\s*{_THREE_DIGITS}{_DIALLED_NUMBER}{_NOT_PRICED}",
            rf"\b(?:hotline|helpline)(?:\s+[a-z]+){{0,2}}\s*[:：]?\s*"
            rf"{_THREE_DIGITS}{_DIALLED_NUMBER}",
            r"(?:(?:拨打|致电|热线)\s*[:：]?|(?:电话|传真|咨询|查询)(?:号码|热线)?\s*[:：])\s*"
            r"\+?\d[\d -]{3,}",
            r"\bpress\s+\d\b",
            # an ordinal: "the 3rd floor", 第二期
            r"\b\d+(?:st|nd|rd|th)\b",
            rf"第[{_ZH_DIGITS}]+",
            # a number naming a place: "room 101", "counter 5", "exit a2", "3/f", 3号, 5楼
            r"\b(?:room|rm\.?|floor|level|counter|window|desk|gate|platform|exit|door|block|"
            r"building|no\.?|number|suite|bay|shop|flat|unit|office|kiosk|stall)\s*#?"
            r"[a-z]?\d+[a-z]?\b|\b\d+/f\b",
            rf"{_ZH_FIGURE}\s*(?:号|楼|层|室|座|栋|路|巷|弄|街)",
            r"(?:柜台|窗口|出口)\s*[a-z]?\d+|(?<![a-z\d])[a-z]?\d++\s*号?(?:出口|柜台|窗口)",
            # a bus or a line taken ("take bus 38", "the 38 bus"; "Fares: bus 5" is a fare)
            r"\b(?:take|taking|took|catch|board)\s+(?:the\s+)?(?:bus|route|line|tram|"
            r"minibus)\s*(?:no\.?\s*)?\d+[a-z]?\b|\b\d+[a-z]?\s+(?:bus|tram|minibus)\b",
            # an age, a share: "children under 12", "aged 6 to 12", "18 or above", "18+",
            # 6至12岁, "85%", "50 percent", 八五折
            rf"\b(?:under|over|aged?|below|above)\s+\d+(?:{_RANGE_TO}\d+)?\+?",
            r"\b\d+\s+(?:and|or)\s+(?:under|over|above|below|older|younger)\b|\b\d+\+",
            rf"{_ZH_FIGURE}(?:\s*(?:至|到|-)\s*[{_ZH_DIGITS}]+)?\s*(?:周岁|岁)",
            rf"{_START}\d+(?:\.\d+)?\s*(?:%|per\s*cent\b|percent\b)|百分之[{_ZH_DIGITS}]+",
            rf"{_ZH_FIGURE}\s*折",
        )
    )
)
# the hours of a place written as a range of hours ("9 to 5", "Mon-Fri 9-5", "9.00 to
# 17.00"): in a sentence saying when it opens or naming a day, and naming no price
# ("Daily rate 10-20", "Opening ceremony tickets: 10 to 20" are prices)
_HOURS_WORD = re.compile(
    r"\b(?:open|opens|opening hours|closes|closed|closing time|hours)\b(?![-\s](?:air|day|to\b))|"
    r"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?s?\b|weekdays?|weekends?|"
    r"开放时间|营业时间|办公时间|开门|关门|星期|礼拜|周[一二三四五六日末]"
)
_NAMES_PRICE = re.compile(
    r"\b(?:fees?|charges?|charged|rates?|tickets?|costs?|prices?|fares?|rent|hire|deposit|"
    r"admission)\b|费|票|租金|价|收费"
)
_HOURS_RANGE = re.compile(
    rf"{_START}(?:[01]?\d|2[0-4])(?:[.:]\d{{2}})?\s*(?:-|–|to|until|till|至|到)\s*"
    r"(?:[01]?\d|2[0-4])(?:[.:]\d{2})?(?!\.?\d)"
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
    text = plain(_STREET_NUMBER.sub(" ", sentence))
    hours = bool(_HOURS_WORD.search(text)) and not _NAMES_PRICE.search(text)
    text = _NOT_MONEY.sub(" ", text)
    return _HOURS_RANGE.sub(" ", text) if hours else text
