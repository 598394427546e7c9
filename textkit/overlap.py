"""Whether a text holds a word: exact token, Chinese substring, or English stem.

Shared by search support scoring (storage.support) and citation checks
(graph.citations), so a passage supports a question and a sentence by the
same measure.
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u4e00-\u9fff]")
STEM = 5  # English words agree on their first five letters ("arrival" ~ "arriving")


def stem(token: str) -> str:
    """The first `STEM` letters of a token (shorter tokens whole)."""
    return token[:STEM] if len(token) > STEM else token


def has_chinese(term: str) -> bool:
    """True for a term `presence` matches as a substring (it holds a Chinese character)."""
    return _CJK.search(term) is not None


def presence(term: str, text: str, tokens: frozenset[str], stems: frozenset[str]) -> float:
    """1 when the window holds the term; half credit for part of a Chinese word.

    Chinese terms are matched as substrings (jieba cuts a question and a
    passage differently: 節慶日 / 節慶 日); a Chinese word only partly present
    earns half the share of its character pairs found.
    """
    if term in tokens:
        return 1.0
    if has_chinese(term):
        if term in text:
            return 1.0
        pairs = [term[i : i + 2] for i in range(len(term) - 1)]
        return 0.5 * sum(p in text for p in pairs) / len(pairs) if pairs else 0.0
    return 1.0 if any(stem(form) in stems for form in verb_forms(term)) else 0.0


# English verbs whose past forms share no first letters with them ("lose" / "lost"): a
# question asking "if I lose my passport" is held by "A lost passport ..." Only forms
# that are no other common word ("left", "found", "saw" are left out).
_IRREGULAR = {
    "lose": ("lost",),
    "pay": ("paid",),
    "take": ("took", "taken"),
    "bring": ("brought",),
    "buy": ("bought",),
    "send": ("sent",),
    "spend": ("spent",),
    "keep": ("kept",),
    "give": ("gave", "given"),
    "get": ("got", "gotten"),
    "go": ("went", "gone"),
    "make": ("made",),
    "tell": ("told",),
    "sell": ("sold",),
    "steal": ("stole", "stolen"),
    "write": ("wrote", "written"),
    "choose": ("chose", "chosen"),
    "forget": ("forgot", "forgotten"),
    "begin": ("began", "begun"),
    "break": ("broke", "broken"),
    "drive": ("drove", "driven"),
    "hold": ("held",),
    "build": ("built",),
    "lend": ("lent",),
    "mean": ("meant",),
    "teach": ("taught",),
    "think": ("thought",),
    "catch": ("caught",),
    "seek": ("sought",),
}
_FORMS: dict[str, tuple[str, ...]] = {}
for _base, _past in _IRREGULAR.items():
    for _word in (_base, *_past):
        _FORMS[_word] = (_base, *_past)


def verb_forms(word: str) -> tuple[str, ...]:
    """The word and, for an irregular English verb, its other forms ("lost": "lose",
    "lost"); any other word alone."""
    return _FORMS.get(word, (word,))
