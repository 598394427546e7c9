"""Whether a claim that is a bare value restates the one figure its sentence states.

A small model often answers "when" or "how many" with the value alone: "1996年",
"In 1996.", "30 days". The claim judge (graph.claim_judge) judges a claim by
meaning, and a bare value is far in meaning from the sentence it comes from (a
real 1.5B model's "1996年" on a DRCD sentence holding it: cosine well under the
bar), so a right answer was dropped. A bare value has nothing to mean besides
its figure and unit, so it is judged by them instead (`restates_value`):

- the claim holds a number, and, besides it, at most `MAX_OTHER_WORDS` words,
  each of them a word of the sentence (its unit "年", a hedge the sentence
  gives, "about") or a unit of time or measure the sentence gives in any
  language ("days" for "天"); a word of its own makes it no bare value, and
  the meaning decides as before (a figure alone, "1996.", is something to judge
  here, where the judge finds nothing to check in "1." — a list's marker);
- the sentence states no figure the claim does not hold, or, when it states
  several, the clause stating the claim's figures (all of them and no other) is
  about what the question asks (half its subject words, graph.subject, and every
  subject word the sentence holds, so that "enlarged in 1996, and it was founded in
  1990" gives no "1996" for "when was it founded": "但2004年
  11月19日發生了「奧本山皇宮事件」" for "「奧本山皇宮事件」於何年發生?" in a
  sentence also giving a season and a score). With two figures and nothing to
  tell which one answers ("founded in 1990, enlarged in 1996" for "when was it
  founded", the clause naming no subject word) the meaning decides, and a bare
  value cannot pass it: the extractive answer quotes the sentence instead.

The claim's figures must also be the sentence's (textkit.facts.disagreement,
checked by the judge first), and whether the figure answers the question asked
is graph.claim_question's test, applied after the judge as to any claim.
"""

from __future__ import annotations

import re

from graph.answer_sentences import covered
from graph.claim_checks import Passage
from graph.subject import subject_words
from textkit.claims import numbers
from textkit.polarity import clauses
from textkit.scripts import plain
from textkit.tokens import stopwords

MAX_OTHER_WORDS = 3
# digits, their separators and ordinal endings, Chinese numerals: the figure itself
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*(?:st|nd|rd|th)?|[零〇一二三四五六七八九十百千万萬亿億两兩]+")
_DIGITS = re.compile(r"\d+")
_LATIN = re.compile(r"[a-z]+")
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_PUNCTUATION = re.compile(r"[^\w\u3400-\u9fff\uf900-\ufaff]+")
# units of time and measure, each with its spellings in English and Chinese (both
# scripts): a claim translated from its sentence names the sentence's unit in its own words
_UNITS = (
    ("year", "years", "yr", "yrs", "年"),
    ("month", "months", "月"),
    ("week", "weeks", "周", "週", "星期", "礼拜", "禮拜"),
    ("day", "days", "天", "日"),
    ("hour", "hours", "hr", "hrs", "小时", "小時", "钟头", "鐘頭"),
    ("minute", "minutes", "min", "mins", "分钟", "分鐘"),
    ("second", "seconds", "秒"),
    ("century", "centuries", "世纪", "世紀"),
    ("percent", "per cent", "%", "％", "百分之"),
    ("kilometre", "kilometres", "kilometer", "kilometers", "km", "公里", "千米"),
    ("metre", "metres", "meter", "meters", "米", "公尺"),
    ("kilogram", "kilograms", "kg", "公斤", "千克"),
    ("people", "persons", "person", "人"),
)
_UNIT_OF = {word: forms for forms in _UNITS for word in forms}


def _unit_in(word: str, sentence: str) -> bool:
    """True when `word` is a unit that `sentence` (plain) gives in any of its spellings."""
    forms = _UNIT_OF.get(word) or _UNIT_OF.get(word.rstrip("s"))
    if forms is None:
        return False
    for form in forms:
        if form.isascii() and form.isalpha():
            if re.search(rf"(?<![a-z]){re.escape(form)}(?![a-z])", sentence):
                return True
        elif form in sentence:
            return True
    return False


def other_words(claim: str) -> list[str]:
    """The claim's words besides its figures and stopwords: Latin words, and Chinese runs
    (a Chinese run is one word: "民國", "年")."""
    text = _FIGURE.sub(" ", plain(claim))
    skip = stopwords()
    latin = [w for w in _LATIN.findall(text) if w not in skip]
    chinese = _CJK_RUN.findall(text)
    signs = [s for s in _PUNCTUATION.findall(text) if s.strip() in ("%", "％")]
    return latin + chinese + [s.strip() for s in signs]


def bare_figure(text: str) -> bool:
    """True when `text` is a figure of two digits or more and nothing else but stopwords
    ("1996.", "In 1996."): an answer, where "1." is a list's marker."""
    return any(len(f) >= 2 for f in _DIGITS.findall(text)) and not other_words(text)


def value_only(claim: str) -> bool:
    """True when `claim` is a figure with at most units besides ("1996.", "1996年", "30
    days"): it has no meaning of its own to compare, so it stands by `restates_value`
    alone (a meaning bar, above all the looser one across languages, passes "1996." on
    a sentence that states 1996 beside the year asked)."""
    words = other_words(claim)
    return (
        bool(numbers(claim))
        and len(words) <= MAX_OTHER_WORDS
        and all(word in _UNIT_OF or word.rstrip("s") in _UNIT_OF for word in words)
    )


def restates_value(claim: str, sentence: str, question: str = "") -> bool:
    """True when `claim` is a bare value ("1996年", "30 days") that restates the one
    figure `sentence` states, or, in a sentence stating several, the clause stating it
    and about what `question` asks (see the module's rules; facts are checked by the
    judge)."""
    wanted = numbers(claim)
    if not wanted or not _bare(claim, sentence):
        return False
    if numbers(sentence) <= wanted:
        return True
    return any(
        numbers(c) == wanted and _names_subject(c, question, sentence) for c in clauses(sentence)
    )


def _names_subject(clause: str, question: str, sentence: str) -> bool:
    """True when `clause` holds at least half of `question`'s subject words (graph.subject),
    as graph.claim_question asks of a claim's sentence, and every one of them its
    `sentence` holds: a subject word in another clause may be the one that tells the
    figures apart ("The library was enlarged in 1996, and it was founded in 1990" for
    "When was the library founded?": "founded" is the 1990 clause's)."""
    wanted = subject_words(question) if question.strip() else set()
    held = covered(wanted, clause)
    return bool(wanted) and 2 * held >= len(wanted) and held >= covered(wanted, sentence)


def _bare(claim: str, sentence: str) -> bool:
    """True when the claim's words besides its figures are few and each is the sentence's
    (or a unit the sentence gives in any language)."""
    words = other_words(claim)
    if len(words) > MAX_OTHER_WORDS:
        return False
    norm = plain(sentence)
    passage = Passage.of(sentence)
    for word in words:
        if _unit_in(word, norm):
            continue
        if _CJK_RUN.fullmatch(word) is not None and word in norm:
            continue
        if word.isascii() and word.isalpha() and passage.words.has(word):
            continue
        return False
    return True
