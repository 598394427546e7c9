"""Whether a text holds a word: exact token, Chinese substring, English stem, or another
form of an irregular English verb.

Shared by search support scoring (storage.support) and the claim checks
(graph.claim_checks), so a passage supports a question and a sentence by the
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


# English verbs whose past forms do not begin as the verb does ("lose" / "lost"): a
# question asking "if I lose my passport" is held by "A lost passport ...". Left out:
# past forms that are common words of their own in official texts ("left", "found",
# "saw", "given" name, "sold" out, "Lent", "made" in, "broken", a "stole", "thoughts").
_IRREGULAR: dict[str, tuple[str, ...]] = {
    "lose": ("lost",),
    "pay": ("paid",),
    "take": ("took", "taken"),
    "bring": ("brought",),
    "buy": ("bought",),
    "send": ("sent",),
    "spend": ("spent",),
    "keep": ("kept",),
    "give": ("gave",),
    "get": ("got", "gotten"),
    "go": ("went", "gone"),
    "tell": ("told",),
    "write": ("wrote", "written"),
    "choose": ("chose", "chosen"),
    "forget": ("forgot", "forgotten"),
    "begin": ("began", "begun"),
    "drive": ("drove",),
    "hold": ("held",),
    "build": ("built",),
    "mean": ("meant",),
    "teach": ("taught",),
    "catch": ("caught",),
    "seek": ("sought",),
}
# each form → every form of its verb
_FORMS: dict[str, tuple[str, ...]] = {
    word: (base, *past) for base, past in _IRREGULAR.items() for word in (base, *past)
}


def verb_forms(word: str) -> tuple[str, ...]:
    """The word and, for an irregular English verb, its other forms ("lost": "lose",
    "lost"); any other word alone."""
    return _FORMS.get(word, (word,))


def presence(term: str, text: str, tokens: frozenset[str], stems: frozenset[str]) -> float:
    """1 when the window holds the term; half credit for part of a Chinese word.

    Chinese terms are matched as substrings (jieba cuts a question and a
    passage differently: 節慶日 / 節慶 日); a Chinese word only partly present
    earns half the share of its character pairs found. An English word is held by a
    word sharing its first `STEM` letters, or by another form of its irregular verb
    as a whole word ("lose" by "lost").
    """
    if term in tokens:
        return 1.0
    if has_chinese(term):
        if term in text:
            return 1.0
        pairs = [term[i : i + 2] for i in range(len(term) - 1)]
        return 0.5 * sum(p in text for p in pairs) / len(pairs) if pairs else 0.0
    if stem(term) in stems:
        return 1.0
    # another form of an irregular verb, as a whole word: its first five letters would
    # meet other words ("broke" / "broker", "stole" / "stoles")
    return 1.0 if any(form in tokens for form in verb_forms(term)) else 0.0
