"""What a claim commits to beyond its words: the numbers it states and its yes/no polarity.

Word overlap cannot tell "no evidence that you can catch it from a package"
from "yes, you can catch it from a package", nor $100 from $130 when both are
in the passage. These are the parts of a sentence that must agree with the
passage sentence it rests on (see graph.citations).
"""

from __future__ import annotations

import re

from textkit.scripts import plain

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# English negation cues (whole words; "No. 5" is a number), and "n't" as in "isn't"
_EN_NEGATION = re.compile(
    r"\b(?:no(?!\.?\s*\d)|not|never|none|nobody|nothing|neither|nor|without|cannot|unable)\b|n't\b"
)
# Chinese negation characters (the text is Simplified by `plain`) ...
_ZH_NEGATION = re.compile(r"[不没无未非别勿否莫]")
# ... minus words that hold one without negating ("different", "very", "future", "regardless")
_ZH_NOT_NEGATION = re.compile(
    r"不同|不但|不仅|不论|不管|不过|不久|不少|不断|不停|无论|非常|未来|否则|除非|莫过于"
)
# a leading answer word: "Yes, ...", "No, ...", "是的，", "不，", "不是。"
_LEADING_ANSWER = re.compile(
    r"^\s*(yes|no(?!\.?\s*\d)|是的|是|对|不是|不|没有)\s*[,，.。!！:：;；]\s*"
)
_NEGATIVE_ANSWERS = frozenset({"no", "不是", "不", "没有"})


def numbers(text: str) -> set[str]:
    """The numbers in `text`, written alike ("1,300" and "1300" are one; "2.50" stays)."""
    out = set()
    for raw in _NUMBER.findall(plain(text)):
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+", raw):  # thousands separators
            raw = raw.replace(",", "")
        out.add(raw.rstrip(".,"))
    return out


def _cues(text: str) -> int:
    norm = plain(text)
    chinese = _ZH_NOT_NEGATION.sub("", norm)
    return len(_EN_NEGATION.findall(norm)) + len(_ZH_NEGATION.findall(chinese))


def is_negation(word: str) -> bool:
    """True for a word that is (or holds) a negation cue: "not", "不", "没有"."""
    return _cues(word) > 0


def negated(text: str) -> bool:
    """True when `text` says no: an odd number of negation cues in its body, or, with none,
    a leading "No," (a leading "Yes,"/"No," only echoes the body when the body says it)."""
    norm = plain(text)
    match = _LEADING_ANSWER.match(norm)
    body = norm[match.end() :] if match else norm
    cues = _cues(body)
    if cues:
        return cues % 2 == 1
    return match is not None and match.group(1) in _NEGATIVE_ANSWERS


def clauses(text: str) -> list[str]:
    """`text` cut at commas, semicolons, colons and "but": the units polarity is read in."""
    # a comma between digits ("1,300") is part of a number, not a clause break
    parts = re.split(r"(?<!\d),|,(?!\d)|[;:，；：、]|\bbut\b|\bhowever\b|但是|然而", text)
    return [p.strip() for p in parts if p.strip()]
