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
    return 1.0 if stem(term) in stems else 0.0
