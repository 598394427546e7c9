"""Facts a claim and the sentence it rests on must share, across languages and scripts.

A claim may translate or reword its quote, but not change what it states:
its numbers (1,300 = 1300 = 一千三百 = 壹仟參佰; a date's day, month and
year; a Chinese ordinal, 第二大, as the English ordinal word it translates,
"second-largest"; the side of a limit, "under 12" = 未滿12歲, not "over 12":
textkit.bounds), the currency of an amount (NT$ = 新臺幣 = TWD), its yes/no
polarity (not/no/never/prohibited = 不/沒有/無/未/否/禁止), and the names it
gives that can be compared without a dictionary: a Latin-script name must be
in a Latin-script quote, and a Latin word a Chinese claim keeps (Wi-Fi, MRT)
or a name it puts in quotation marks must be in a quote of its script.
`disagreement` says which of them differs.
"""

from __future__ import annotations

import re

from textkit.bounds import turned_round
from textkit.claims import chinese_ordinals, numbers, ordinal_words
from textkit.polarity import mixes_polarity, negated
from textkit.scripts import plain

# currency words → one code each; "$", "dollar" and "元" alone name none (the document's own)
_CURRENCIES = {
    "TWD": r"nt\$|ntd|twd|new taiwan dollars?|新台币|台币",
    "USD": r"us\$|usd|u\.s\. dollars?|us dollars?|american dollars?|美元|美金",
    "CNY": r"rmb|cny|renminbi|人民币",
    "HKD": r"hk\$|hkd|hong kong dollars?|港币|港元",
    "EUR": r"€|eur|euros?|欧元",
    "GBP": r"£|gbp|pounds? sterling|british pounds?|英镑",
    "JPY": r"jpy|japanese yen|yen|日元|日圆|日币",
}
_CURRENCY = {
    code: re.compile(r"(?<![a-z])(?:" + words + r")(?![a-z])")
    for code, words in _CURRENCIES.items()
}
_AGE = re.compile(r"岁|\bage[ds]?\b|\byears? old\b")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'.][A-Za-z0-9]+)*")
# a name in quotation marks: "...", “...”, 「...」, 『...』, 《...》
_QUOTED = re.compile(r"[\"“「『《]([^\"”」』》]{2,40})[\"”」』》]")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;。！？：；]\s*|\n)\W*$")
_FUNCTION_CAPS = frozenset(
    re.findall(
        r"\w+",
        "i a an the this that these those it its he she they we you yes no not if when"
        # months and days are numbers or dates, checked as such, not names
        " january february march april may june july august september october november"
        " december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday"
        " thursday friday saturday sunday am pm",
    )
)


def currencies(text: str) -> set[str]:
    """The currencies `text` names, as codes ("NT$1,300", "新臺幣一千三百元": TWD)."""
    norm = plain(text)
    return {code for code, pattern in _CURRENCY.items() if pattern.search(norm)}


def is_latin(text: str) -> bool:
    """True when `text` is written in Latin script (fewer CJK characters than letters / 5)."""
    letters = sum(ch.isalpha() for ch in text)
    return len(_CJK.findall(text)) < 0.2 * max(letters, 1)


def latin_names(text: str) -> set[str]:
    """The Latin-script names of `text`, lower-cased: capitalised words not opening a
    sentence ("the Taipei office"), words in capitals or with a digit or inner capital (MRT,
    Wi-Fi, iPhone), and any Latin word of a Chinese text (kept untranslated: a name)."""
    chinese = not is_latin(text)
    out: set[str] = set()
    for match in _LATIN_WORD.finditer(text):
        word = match.group(0)
        lower = word.lower()
        if lower in _FUNCTION_CAPS or len(word) < 2:
            continue
        marked = (
            word.isupper()
            or any(ch.isdigit() for ch in word)
            or any(ch.isupper() for ch in word[1:])
        )
        opening = _SENTENCE_START.search(text[: match.start()]) is not None
        if chinese or marked or (word[0].isupper() and not opening):
            out.add(lower)
    return out


def quoted_names(text: str) -> set[str]:
    """What `text` puts in quotation marks, normalised (a title, a form's name)."""
    return {plain(q).strip() for q in _QUOTED.findall(text) if q.strip()}


def _has(name: str, quote: str) -> bool:
    return re.search(r"(?<![a-z0-9])" + re.escape(name) + r"(?![a-z0-9])", quote) is not None


def disagreement(claim: str, quote: str) -> str | None:
    """Why `claim` states other facts than `quote` (None: they agree): "number" (a number of
    the claim is not the quote's; a Chinese ordinal's may be the quote's English ordinal
    word), "currency", "polarity" (one says no, the other yes) or
    "other_entity" (a name of the claim that the quote, in its script, does not give)."""
    quoted = numbers(quote)
    # a Chinese ordinal is a number (第二 is 2), an English one a word: 第二大 stands on
    # "second-largest"; every other number of the claim must be the quote's as it was
    rest, ranks = chinese_ordinals(claim)
    if not numbers(rest) <= quoted or not ranks <= quoted | ordinal_words(quote):
        return "number"
    turned = turned_round(claim, quote)  # "over 12" on 未滿12歲
    flipped = negated(claim) != negated(quote)
    # a limit turned round and negated says the same ("may not buy more than 2" is
    # 不超過2張, "up to 2"), save of people by age: "Those under 18 may enter" is not what
    # 18歲以上不得入場 states of adults
    if turned and (not flipped or _AGE.search(plain(claim + quote))):
        return "number"
    named = currencies(claim)
    stated = currencies(quote)
    if named and stated and not named <= stated:
        return "currency"
    if (flipped and not turned) or mixes_polarity(claim, quote):
        return "polarity"
    norm = plain(quote)
    latin_quote = is_latin(quote)
    if latin_quote or not is_latin(claim):
        # a Latin name must be in a Latin quote; a Chinese claim keeps a Latin word only
        # when its quote has it too (an English claim on a Chinese quote translates names)
        names = latin_names(claim) - _currency_words(claim)
        if any(not _has(name, norm) for name in names):
            return "other_entity"
    for name in quoted_names(claim):
        if is_latin(name) == latin_quote and name not in norm:
            return "other_entity"
    return None


def _currency_words(text: str) -> set[str]:
    """Latin words of `text` that only name a currency or a unit of time ("NT", "USD", "AM")."""
    return {w for w in latin_names(text) if currencies(w) or w in {"nt", "am", "pm", "hk", "us"}}
