"""Whether a model's claim is its sentence's own words: a stretch of it, word for word.

A small model often answers with a piece of the sentence it rests on ("草原和沙地覆蓋。"
of "有些海拔較低的位置或斜坡則被草原和沙地覆蓋。"). Such a piece embeds far from
the whole sentence (0.43 here, under the same-language meaning bar of
graph.claim_judge), though it says what the sentence says, provided:

- it is a run of the sentence's whole words (English) or characters (Chinese),
  spaces, punctuation, case, width and script aside ("available" is no stretch
  of "unavailable");
- it holds at least `MIN_WORDS` content words, counted on whole words (健身房 is
  one word, not 健身 and 健身房): one word names a topic, it states nothing;
- what the sentence says outside it holds no negation and no condition,
  exception, limit, contrast, report or relative clause ("No refunds are given"
  → "refunds are given"; "if you hold a badge, you may park for free" → "park
  for free"; "Reports that the branch will close were denied" → "the branch
  will close"): left behind, those would turn a piece of a true sentence into a
  false claim.

The claim's facts are still checked against the sentence, and its meaning must
still reach graph.claim_judge's cross-language bar (`MIN_MEANING`).
"""

from __future__ import annotations

import re

from textkit.claims import has_negation
from textkit.scripts import plain
from textkit.tokens import keyword_spans, stopwords

MIN_WORDS = 2
# a whole English word or number, or one Chinese character (Simplified by `plain`)
_UNIT = re.compile(r"[a-z0-9]+|[\u3400-\u9fff\uf900-\ufaff]")
_SEPARATOR = "\x1f"
# what, left out of a claim, turns the rest of its sentence into something it does not
# say: a condition, an exception, a limit, a contrast, a past state, a report or denial,
# whom it is said of
_QUALIFIERS = re.compile(
    r"\b(?:if|unless|except|excepting|only|but|however|although|though|rather|instead"
    r"|used|until|till|provided|providing|when|whenever|once|otherwise|formerly|previously"
    r"|who|whom|whose"  # a relative clause left out widens whom it is said of
    r"|deny|denies|denied|false|untrue|rumou?rs?|reportedly|allegedly|alleged|claims?"
    r"|reports?|supposedly)\b"
    r"|如果|假如|假若|若|倘若|要是|除非|除了|除外|只有|只要|只|仅|但|可是|不过|然而"
    r"|而非|而不是|以前|之前|曾|直到|否认|谣言|传闻|据说|据称|声称|假的"
)


def _units(text: str) -> list[str]:
    return _UNIT.findall(plain(text))


def _joined(units: list[str]) -> str:
    """Units as text again: a space between two English words, none beside Chinese."""
    out = ""
    for unit in units:
        if out and unit.isascii() and out[-1].isascii():
            out += " "
        out += unit
    return out


def whole_words(text: str) -> list[str]:
    """The text's content words, each once, a longer word's parts left out (the search
    cut gives 健身, 健身房 for 健身房: one word)."""
    spans = keyword_spans(text)
    skip = stopwords()
    whole = [
        token
        for token, start, end in spans
        if not any(s <= start and end <= e and (s, e) != (start, end) for _, s, e in spans)
    ]
    return [t for t in dict.fromkeys(whole) if t not in skip and not (len(t) == 1 and t.isascii())]


def verbatim_part(claim: str, sentence: str) -> bool:
    """True when `claim` is a stretch of `sentence`, word for word, with `MIN_WORDS`
    content words, and the sentence says no "not", "if", "only", "but"… outside it."""
    part, whole = _units(claim), _units(sentence)
    if not part or len(part) > len(whole) or len(whole_words(claim)) < MIN_WORDS:
        return False
    joined = _SEPARATOR + _SEPARATOR.join(whole) + _SEPARATOR
    at = joined.find(_SEPARATOR + _SEPARATOR.join(part) + _SEPARATOR)
    if at < 0:
        return False
    start = joined[:at].count(_SEPARATOR)  # the stretch's first unit's index
    rest = [_joined(whole[:start]), _joined(whole[start + len(part) :])]
    return not any(has_negation(r) or _QUALIFIERS.search(r) for r in rest)
