"""What kind of answer a question asks for, and whether a sentence carries one.

A support signal that holds in any language pair: "how many" / 多少 asks for an
amount, "when" / 何时 / 哪一年 for a date, "who" / 谁 for a name. A sentence
that answers carries a number, a year or a name whatever its language; one that
carries none of the asked kind is about the topic but does not answer. Numbers
are read with textkit.claims.numbers ("1,300", 一千三百 and "thirteen hundred"
alike).

Kept to what holds in both languages:
- an amount: a number (a Chinese 一 alone is mostly "a", not a figure) or a
  word for a vague amount ("hundreds", 数百, "half", 一半, "%");
- a date: a year, a month, a day of a month, a century or a decade in either
  language;
- a name: capitalised words inside an English sentence. Chinese writes names in
  no way a pattern tells from other words (a transliterated name's ·
  aside), so a Chinese sentence is never judged to lack one (`carries` is True).
Yes/no questions and any other kind ask for none (`asked_type` None).

Finer kinds, for choosing which sentences an extractive answer quotes
(`answer_kinds`, `holds`): a price ("how much does it cost" / 多少钱), a duration
("how long" / 多久), a time of day or weekday ("when is it open" / 几点) and a
count of things ("how many books" / 几本 / 多少人): a number of the thing counted
(a measure word, or a noun that is no unit of money, time or measure), so a fine
in dollars does not answer how many books a card borrows; a figure before a
capitalised word ("1 Harbour Road") numbers a name and counts nothing, nor does
"one" picked out by "any" or "each" ("at any one branch", 任何一間分館).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from textkit.claims import numbers
from textkit.figures import without_other_figures
from textkit.polarity import negated
from textkit.question_words import WHEN, asks_when
from textkit.scripts import plain
from textkit.time_asked import ASKS_TIME, DAYS_ZH, IS_OPEN_ZH, asks_time

AnswerType = Literal["amount", "date", "name"]

# matched on `plain` text (lower-cased, Simplified): one spelling serves both scripts.
# Dates first: "how many years ago" asks a duration, "what year" a date.
_ASKS_DATE = re.compile(
    r"\bwhat (?:year|century|decade|date|day|month|time period)\b|"
    r"\b(?:which|in what|by what|since what|until what) (?:year|century|decade|date|month)\b|"
    r"\bhow long ago\b|何时|何年|哪一?年|什么时候|什么时间|哪个世纪|哪一?个?年代|哪一天|"
    r"什么年代|何日|几月|几号|几世纪|几时"
)
_ASKS_AMOUNT = re.compile(
    r"\bhow (?:many|much|long|old|far|large|big|high|tall|deep|wide|often|fast)\b|"
    r"\bwhat (?:percentage|percent|proportion|number|amount|fraction|share)\b|"
    # 第几 asks a rank ("second-largest"), an ordinal, not an amount
    r"多少|(?<!第)几(?!乎|点|时)|多久|多长|多大|多远|多高|多深|多宽|多重|多快|百分之|比例|数量|人数|数目"
)
_ASKS_NAME = re.compile(r"\bwho(?:m|se)?\b|谁|何人|哪位|哪一位|什么人")
# vague amounts, written out
_VAGUE_AMOUNT = re.compile(
    r"\b(?:hundreds|thousands|millions|billions|dozens?|several|half|percent|majority|"
    r"minority|twice|double|triple)\b|%|％|数[十百千万亿]|几[十百千万亿]|上[百千万]|"
    r"成千上万|一半|大半|多半|半数|百分之|倍|大多数|少数"
)
_DIGIT = re.compile(r"\d")
_EN_DATE = re.compile(
    r"\b(?:1\d{3}|20\d{2}|\d{1,4}s|\d{1,2}(?:st|nd|rd|th) century|century|centuries|decade|"
    r"january|february|march|april|june|july|august|september|october|november|december|"
    r"bc|bce|ad|ce|spring|summer|autumn|winter|dynasty|"
    r"(?:same|that|following|next|previous) year)\b"
)
_ZH_NUMERAL = "0-9零〇一二三四五六七八九十百千两"
_ZH_DATE = re.compile(
    rf"[{_ZH_NUMERAL}]+\s*(?:年|月|日|号)|世纪|年代|公元|朝|[春夏秋冬]季?|同年|当年|次年|翌年|前一年"
)
# a capitalised word after the sentence's first: a proper name in English
_EN_NAME = re.compile(r"(?<=[\s(\"“‘,;:])[A-Z][a-z]+")
_CJK = re.compile(r"[\u3400-\u9fff]")


# a tag after a question names its state, not what it asks: a forum's "[closed]" or
# "[duplicate]" is no closing time. Matched on the reversed text from its start: a
# pattern anchored at the end is tried from every position, quadratic on a message
# of many bracketed words
_TRAILING_TAGS_REVERSED = re.compile(r"(?:\s*[\]】][^\[\]【】]{1,20}[\[【])+\s*")


def _asked_text(question: str) -> str:
    """The question as its kind is read: plain, without a trailing tag."""
    text = plain(question)
    tags = _TRAILING_TAGS_REVERSED.match(text[::-1])
    return text[: len(text) - tags.end()] if tags else text


def asked_type(question: str) -> AnswerType | None:
    """The kind of answer `question` asks for (either language, either script): "date",
    "amount" or "name"; None for a yes/no question or any other kind."""
    text = _asked_text(question)
    # "when" asks a date only where it asks (textkit.question_words.asks_when): "what
    # happens when …" asks what happens
    if _ASKS_DATE.search(text) or asks_when(text):
        return "date"
    if _ASKS_AMOUNT.search(text):
        return "amount"
    if _ASKS_NAME.search(text):
        return "name"
    return None


# a number dialled is no year: "call 1999", 拨打 1999 (a short hotline number is no
# phone number by its length); one number only, its parts joined by hyphens (the next
# figure, "1823 2019年启用", is another)
_DIALLED = re.compile(
    r"(?:\b(?:call|dial|phone|ring|hotline|tel\.?)(?:\s+us)?"
    r"(?:\s+(?:enquiries|inquiries|number|line|no\.?))?(?:\s+on|\s+at)?|"
    r"拨打|撥打|致电|致電|(?:电话|電話|热线|熱線)(?:查询|查詢|咨询|諮詢|号码|號碼)?)"
    r"\s*[:：]?\s*\+?\d{3,}(?:-\d+)*(?![\d:]|\.\d)"
)


def carries(sentence: str, kind: AnswerType | None) -> bool:
    """True when `sentence` holds an answer of the kind asked (any sentence does when
    the question asks for no kind; a Chinese sentence is never judged to lack a name)."""
    if kind is None:
        return True
    text = plain(sentence)
    if kind == "amount":
        return has_amount(text)
    if kind == "date":
        text = _DIALLED.sub(" ", text)  # "call 1999" asks for no year
        return bool(_EN_DATE.search(text) or _ZH_DATE.search(text))
    # a name: capitalised words need the sentence's own case (not `plain`)
    return bool(_CJK.search(sentence)) or bool(_EN_NAME.search(sentence))


# figures that count nothing: a phone number ("0800-123-456", "+852 2345 6789") or a
# form's code ("DL-2")
_NOT_AMOUNT = re.compile(r"(?<!\d)\+?\(?\d++\)?(?:[ -]\d++)*|\b[A-Za-z]{1,4}-\d+\b")


def _phone_or_code(found: re.Match[str]) -> str:
    """A phone number (seven digits or more in groups one blank or hyphen apart, or eight
    in one run; not "100 - 500", nor "1000-2000", whose groups are round) or a form's
    code: blanked."""
    text = found[0]
    if text[:1].isalpha():
        return " "
    groups = re.findall(r"\d+", text)
    enough = 8 if len(groups) == 1 else 7
    if sum(len(g) for g in groups) < enough or all(g.endswith("00") for g in groups):
        return text
    return " "


def has_amount(text: str) -> bool:
    """True when a text states an amount: a figure (a Chinese 一 alone is "a", not one)
    or a vague amount ("hundreds", 数百, "half"); a phone number or a form code is none."""
    text = _NOT_AMOUNT.sub(_phone_or_code, text)
    found = numbers(text)
    if _DIGIT.search(text) or found - {"1"}:
        return True
    return bool(_VAGUE_AMOUNT.search(plain(text)))


# finer kinds of an amount: a price, a duration (matched on `plain` text)
# the nouns naming a price, in either language: a question holding one asks a price, and
# they are the words a sentence giving a price holds without writing them (`price_words`)
_PRICE_NOUNS_EN = r"costs?|price[sd]?|fees?|charges?|fares?|tuition"
_PRICE_NOUNS_ZH = r"费用|收费|价格|价钱|票价|学费"
_PRICE_ASKED_ZH = rf"多少钱|几多钱|{_PRICE_NOUNS_ZH}|要钱|付多少"
_ASKS_PRICE = re.compile(rf"\b(?:{_PRICE_NOUNS_EN}|pay|paid)\b|{_PRICE_ASKED_ZH}")
# "can I pay with my phone?", "is it paid by card?": a yes-or-no question on how one pays
# asks no price ("how much do I pay by card?", "what do I pay at the counter?" do)
_YES_OR_NO = re.compile(
    r"^\s*(?:\w+,\s*)?(?:can|could|may|might|do|does|is|are|will|would|should|shall|must|"
    r"need|have|has)\b"
)
_PAYS_HOW = re.compile(
    r"\b(?:pay|paid)\s+(?:\w+\s+){0,2}?(?:with|by|using|via|through|online|at|on|later|in\s+\w+)\b"
)
# "how is overtime paid?", "how do I pay a parking fine?": "how" (not "how much") asks the
# way a thing is paid; only a price's own noun ("how is the fee calculated?") asks a price
_ASKS_HOW = re.compile(r"^\s*(?:\w+,\s*)?how\b(?!\s+(?:much|many)\b)")
_NAMES_PRICE = re.compile(rf"\b(?:{_PRICE_NOUNS_EN})\b|{_PRICE_ASKED_ZH}")  # no pay, paid
# a question's words that name the price it asks ("cost", 钱 of 多少钱): a window holding
# a price holds them (storage.support)
_PRICE_WORD = re.compile(rf"(?:{_PRICE_NOUNS_EN}|钱|{_PRICE_NOUNS_ZH})")
_HAS_PRICE = re.compile(
    r"[$€£¥￥]|\b(?:dollars?|cents?|euros?|pounds?|yuan|rmb|hkd|usd|twd|ntd|"
    r"eur|gbp|jpy|cny|sgd|aud|cad|no charge|free of charge)\b|"
    # 元, 日圆 (yen), 港币 after the figure; 港币, 新台币 before it
    r"[0-9零〇一二三四五六七八九十百千万两]\s*(?:日|港|美|欧|英|澳|新台|台)?(?:元|块|圆|币)|"
    r"(?:港币|港元|台币|人民币|美元|欧元|日元|日圆)\s*[0-9]|免费|免收|"
    # no fee at all is a price too ("There are no late fees for children's items"), the
    # fee word ending its phrase ("no cost estimate", "no charges were filed" are none)
    r"\bno\s+(?!one\b)(?:[a-z]+\s+)?(?:fees?|charges?|costs?)\b(?=\s*(?:[.,;:!)]|$)|"
    r"\s+(?:or|and)\s+(?:fees?|charges?|costs?|fines?)\b|\s+(?:for|on|to|apply|applies|are|is|"
    r"will|when|if|at|payable|charged|levied|involved)\b)|不收费|"
    # "free" as a price ("is free", "for free", "free for residents", "free to use"), not
    # as a name's adjective ("toll-free", "free Wi-Fi", "a free bulky waste collection")
    r"\b(?:is|are|be|was|were|remains?|stays?|it's|for)\s+free\b(?!-)|"
    r"(?<![-\w])free\s+(?:for|to\s+\w+)\b"
)
# whether a thing is free asks its price ("is a savings account free", 借书证免费吗);
# not one of `answer_kinds`: "free" often names a thing there ("free Wi-Fi", "toll-free")
_ASKS_IF_FREE = re.compile(r"\bfree\b|免费|不用钱")
# "how much is a parking permit?" asks its price: "how much is/are" before the thing
# named, in the present, and the thing no measure of another kind ("how much is the
# processing time", "how much was the use cut", "how much is left": amounts)
_ASKS_PRICE_OF_THING = re.compile(r"\bhow much (?:is|are) (?!left\b|there\b|it\b|that\b|this\b)")
# "how much?", "how much is it?", "how much would that be?": no measure named at all, so
# it asks the price of the thing spoken of (a follow-up's: "renew a passport? how much?")
_HOW_MUCH_ALONE = re.compile(
    r"\bhow much(?:\s+(?:is|was|will|would)(?:\s+(?:it|that|this))?(?:\s+be)?)?\s*(?:[?.!,;]|$)"
)
_MEASURE_NOUN = re.compile(
    r"\b(?:time|times|period|periods|temperature|distance|weight|size|height|length|depth|"
    r"limit|limits|allowance|quota|capacity|use|usage|space|storage|data|water|electricity|"
    r"energy|power|speed|rate|rates|percentage|share|population|number|amount|volume|"
    r"area|down|up|cut|left|saved|lost|raised|spent|grown|risen|fallen)\b"
)
_HAS_TIME = re.compile(
    r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.)|\b(?:monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|weekdays?|weekends?|noon|midnight)s?\b|"
    r"星期|周[一二三四五六日末]|礼拜|[0-9一二三四五六七八九十]+\s*[点時时]|上午|下午|中午|晚上"
)
# the day a time is asked for, next to the asking ("open on Sundays", 星期天开吗): part of
# the time asked, no word of the thing ("Sunday school", 礼拜堂, 周末市集 keep theirs;
# text as `plain` gives it: lower case, Simplified)
_DAY_ASKED = re.compile(
    r"\bon\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|weekdays?)\b|"
    r"(?:" + DAYS_ZH + r")(?:" + IS_OPEN_ZH + r"|(?=有?(?:开|关门|营业|上班|几点)))"
)
_ASKS_DURATION = re.compile(
    r"\bhow long\b|\bhow many (?:seconds|minutes|hours|days|weeks|months|years)\b|"
    r"多久|多长时间|多少天|几天|几个月|几年|几周|几个星期|几个小时|几小时|几分钟"
)
_DURATION_UNITS = (
    r"(?:second|minute|hour|day|week|fortnight|month|year)s?|"
    r"秒|分钟|小时|天|日|周|星期|个月|月|年"
)
_HAS_DURATION = re.compile(
    rf"(?:\d|[零〇一二三四五六七八九十百千两几数]|\b(?:a|an|one|two|three|four|five|six|seven|"
    rf"eight|nine|ten|twelve|several|few)\b)\s*(?:个\s*)?(?:[a-z]+\s+|工作|营业)?"
    rf"(?:{_DURATION_UNITS})",
)

# what to bring or hand in: "what do I need to bring", "which documents", 要带什么, 需要什么
# 材料 (not "what do I need to do", nor 需要什么条件: conditions, which no item states)
_ITEM_NOUNS_EN = r"documents?|papers?|paperwork|materials?|items?|ids?|identification|proofs?"
_ITEM_NOUNS_ZH = r"材料|文件|证件|资料|证明|表格"
_WHO = r"(?:i|we|you|one|they|he|she|my \w+)"
_ASKS_ITEMS = re.compile(
    rf"\bwhat (?:do|does|should|must|shall|will) {_WHO} (?:need to |have to |got to )?"
    r"(?:bring|take (?:with|along)|submit|provide|prepare|present|show|hand in|need(?! to\b))\b|"
    rf"\b(?:what|which) (?:{_ITEM_NOUNS_EN}) (?:do|does|should|must|shall|will) {_WHO} "
    r"(?:need|bring|submit|have to|got to)\b|"
    rf"\bwhat to (?:bring|submit|prepare)\b|\b(?:{_ITEM_NOUNS_EN}) (?:are |is )?"
    r"(?:needed|required)\b|"
    # 带什么, 要准备哪些证件, 需要什么材料, 所需文件 (not 什么文件形成: what a thing is; not
    # 交什么钱: a fee)
    r"(?:带|携带|准备|提交|出示|交)(?:些)?(?:什么|哪些)(?![钱费税])|"
    rf"(?:需要|要|须|应|(?<!获)得)(?:\w{{0,4}}?)(?:什么|哪些)(?:{_ITEM_NOUNS_ZH}|东西)|"
    rf"所需(?:的)?(?:{_ITEM_NOUNS_ZH})"
)
# a sentence naming what to bring or hand in: "Bring your old passport …", 请携带身分证
# (not what is brought about: "The roadworks will bring delays"; not an HIV 携带者)
_HAS_ITEMS = re.compile(
    r"\b(?:bring|bringing|submit|submitting|attach|attaching|enclose|enclosing|hand in"
    r"|take along|you(?:'ll| will)? need|documents? (?:needed|required)|fill (?:in|out)"
    r"|required documents?|what to bring)\b"
    r"(?! (?:about|delays?|changes?|down|back|rain|traffic|problems?|peace|joy|hope)\b)|"
    r"携带(?!者)|带同|请带|须带|需带|附上|另附|检附|并附|须附|需附|提交|递交|出示|备妥|填妥|填写"
    r"|应备|所需(?:的)?(?:文件|材料|证件)"
    r"|准备好|请准备|须准备|需准备|正本|影本|复印件|副本"
)
# the kinds an answer lists over several sentences, and a claim states without a word of
# its own ("You need your ID card and form PK-01"): quoted by, not asked of a claim
LISTED_KINDS = ("items",)
# the kinds a claim may state in words of its own, and a passage too ("You need your ID
# card" names no verb of bringing): they choose what an extractive answer quotes, not what
# a model reads nor what its claim must hold
FREELY_CLAIMED = ("items",)

# Chinese measure words of things counted (not of money, time or length): 本 books, 张
# cards, 次 times, 位 / 名 / 人 people...
_MEASURE = "本册张个次位名人件项份条台辆间所家种把只支部篇页门堂节场届盒包箱瓶杯袋双对套"
# a count asked: "how many books" (not "how many days", a duration), 几本 / 几张 / 几个
# (not 几个月), 多少人 / 多少本书 (not 多少钱 nor 多少天)
_ASKS_COUNT = re.compile(
    r"\bhow many (?!seconds?\b|minutes?\b|hours?\b|days?\b|weeks?\b|months?\b|years?\b|"
    r"times? (?:a|per)\b)[a-z]+|"
    rf"(?<!第)几(?:个(?!月|小时|星期|钟头|工作)|[{_MEASURE.replace('个', '')}])|"
    r"多少(?!钱|元|块|天|年|日|个?月|个?小时|分钟|时间|秒|岁|公[里斤尺]|米|度|倍|%|百分|比例)"
    r"(?:个)?[\u4e00-\u9fff]"
)
# units that make a figure no count of things: money, time, measures
_NOT_COUNTED = (
    r"(?:dollars?|cents?|euros?|pounds?|yuan|rmb|hkd|usd|twd|ntd|percent|per cent|"
    r"seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?|decades?|centur(?:y|ies)|"
    r"am|pm|a\.m\.|p\.m\.|o'clock|[kmc]?m|km|kg|g|mm|cm|ml|l|st|nd|rd|th|and|or|to|of|"
    r"in|at|on|by|for|per|a|an|the)\b"
)
_EN_NUMBER = (
    r"(?:\d[\d,]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
    r"twenty|thirty|fifty|hundred|dozen)"
)
# "one" / 一 after "any", "each", 任何, 每, 同... picks a thing out, it counts nothing
# ("at any one branch", 任何一间分馆, 每一位): a count is a number of things
# a space between the word and its 一 is common in text pasted from the web ("任何 一间")
PICKING_WORDS = "每同另哪这那某"  # (Simplified) before a 一 that picks a thing: 每一位, 哪一年
_PICKS_ONE = (
    r"(?<!\bany )(?<!\beach )(?<!\bevery )(?<!\bno )(?<!任何)(?<!任何 )"
    rf"(?<![{PICKING_WORDS}])(?<![{PICKING_WORDS}] )"
)
_HAS_COUNT = re.compile(
    rf"\b(?:{_EN_NUMBER.replace('one|', '')}|{_PICKS_ONE}one)\s+(?:more\s+|additional\s+|other\s+)?"
    rf"(?!(?:working\s+|business\s+|calendar\s+|full\s+|whole\s+|clear\s+)?{_NOT_COUNTED})"
    r"[a-z]{2,}|"
    rf"(?:[0-9零〇二两三四五六七八九十百千万几数]|{_PICKS_ONE}一)\s*[{_MEASURE}]"
)

# a figure before a capitalised word numbers a name ("1 Harbour Road", "2 Queen's
# Street"), it counts no things: matched on the sentence's own case
_NUMBERS_NAME = re.compile(r"\b\d[\d,]*\s+(?=[A-Z][a-z])")

# the words that name a kind of answer ("fee", "closed"): a sentence naming one without
# holding it sets its terms ("The fee is waived for applicants over 65")
_NAMES_KIND = {"price": _ASKS_PRICE, "time": ASKS_TIME, "duration": _ASKS_DURATION}


def answer_kinds(question: str) -> list[str]:
    """The kinds of answer the question asks that leave out sentences holding none, the
    finest first ("price", then "maybe_price"; "duration", then "amount")."""
    kind = asked_type(question)
    text = _asked_text(question)
    finer: list[str] = []
    paying = _PAYS_HOW.sub(" ", text) if _YES_OR_NO.match(text) else text
    if _ASKS_HOW.match(text) and not _NAMES_PRICE.search(text):
        paying = ""  # the way a thing is paid, not its price
    if kind in (None, "amount") and (
        _ASKS_PRICE.search(paying)
        or (_ASKS_PRICE_OF_THING.search(text) and not _MEASURE_NOUN.search(text))
        or _HOW_MUCH_ALONE.search(text)
    ):
        finer.append("price")
    if kind == "amount" and _ASKS_DURATION.search(text):
        finer.append("duration")
    elif kind == "amount" and _ASKS_COUNT.search(text) and "price" not in finer:
        finer.append("count")
    if kind in (None, "date") and asks_time(text):
        finer.append("time")
    # (a yes-or-no question asks whether, not what: "Is an ID required for children?")
    if kind is None and _ASKS_ITEMS.search(text) and not _YES_OR_NO.match(text):
        finer.append("items")
    # a name is no kind to leave sentences out by: "who" is often answered by a common
    # noun ("only pharmacists"), and every Chinese sentence may hold one. A price asked
    # may be written as a bare figure ("Adults 20"), but not as an hour or a phone
    # number (textkit.figures)
    if "price" in finer:
        return [*finer, "maybe_price"]
    return finer + ([kind] if kind in ("amount", "date") else [])


def asks_if_free(question: str) -> bool:
    """True when the question asks whether something is free (a price asked, though not
    one of `answer_kinds`: graph.entry_across reads it so)."""
    return bool(_ASKS_IF_FREE.search(plain(question)))


# Markdown's emphasis marks around a word or a figure ("5 _dollars_", "**$5**"), not
# the ones inside a name ("ps_11_2024.pdf", SUMMER_2025)
_EMPHASIS = re.compile(r"(?<![^\W_])[_*]+|[_*]+(?![^\W_])")


def holds(sentence: str, kind: str) -> bool:
    """True when `sentence` holds an answer of `kind` (a price, a figure that may be one,
    a duration, a time, a count, what to bring, or an amount, a date or a name)."""
    sentence = _EMPHASIS.sub(" ", sentence)
    if kind == "price":
        return bool(_HAS_PRICE.search(plain(sentence)))
    if kind == "maybe_price":
        return has_amount(without_other_figures(sentence))
    if kind == "duration":
        return bool(_HAS_DURATION.search(plain(sentence)))
    if kind == "time":
        return bool(_HAS_TIME.search(plain(sentence)))
    if kind == "count":
        return bool(_HAS_COUNT.search(plain(_NUMBERS_NAME.sub(" ", sentence))))
    if kind == "items":
        # a sentence saying what not to bring names no item to bring (馆内禁止携带食物)
        return bool(_HAS_ITEMS.search(plain(sentence))) and not negated(sentence)
    if kind in ("amount", "date", "name"):
        return carries(sentence, kind)  # type: ignore[arg-type]
    return False


def names_kind(sentence: str, kind: str) -> bool:
    """True when `sentence` names the kind of answer ("fee", "closed", "how long") without
    necessarily holding one: it sets the answer's terms ("The fee is waived for
    applicants over 65")."""
    names = _NAMES_KIND.get(kind)
    return bool(names and names.search(plain(sentence)))


def price_words(question: str, terms: Iterable[str]) -> frozenset[str]:
    """The `terms` (a question's keyword tokens) that name the price it asks ("cost",
    "fee", 钱 of 多少钱): none unless it asks a price. A sentence giving a price says
    them without their word ("The yearly rent is 40 euros" for "how much does a plot
    cost"; 罚一千二百元 for 罚多少钱)."""
    if "price" not in answer_kinds(question):
        return frozenset()
    return frozenset(t for t in terms if _PRICE_WORD.fullmatch(t))


def without_kind_words(text: str) -> str:
    """`text` (`plain`) without the words that ask or name a kind of answer ("how much",
    "cost", 多少钱, "how long", "open"): what is left names the thing asked about."""
    # the day first: it is known by the asking words after it
    for asks in (_DAY_ASKED, _ASKS_PRICE, _ASKS_DURATION, ASKS_TIME, _ASKS_DATE, _ASKS_AMOUNT):
        text = asks.sub(" ", text)
    # asking a date or joining a condition, "when" names nothing asked about
    return WHEN.sub(" ", text)
