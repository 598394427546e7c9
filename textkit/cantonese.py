"""Colloquial written Cantonese as standard written Chinese, for searching.

A Hong Kong resident writes as they speak: 「身份證點樣補領？要幾多錢？」. The
documents are in written Chinese (「怎樣」「多少錢」), and the Cantonese words,
unknown to the index, weigh most in the question's keyword coverage: the question
misses the page that answers it. `written_chinese` rewrites those words for the
search only; the question shown, stored and answered stays as it was written.

The table is small on purpose: words whose written equivalent is certain. Longer
phrases are replaced first (幾多錢 before 幾多), and characters that are also parts of
ordinary written words are left alone there: 係 in 關係 (relationship) or 係數; 唔
becomes 不 only before a verb-like character (唔該, "please", stays). Simplified
Cantonese is mapped too, except 系 (the Simplified 係), which is mostly 系統, 體系.
"""

from __future__ import annotations

import re
from functools import lru_cache

from textkit.scripts import ZH_HANS, detect_language, to_simplified

# (colloquial, written): Traditional, then the Simplified forms that differ; longest first
# in the pattern, so a phrase wins over its first character
WORDS: tuple[tuple[str, str], ...] = (
    ("乜嘢", "什麼"),
    ("咩嘢", "什麼"),
    ("點樣", "怎樣"),
    ("点样", "怎样"),
    ("點解", "為什麼"),
    ("点解", "为什么"),
    ("幾時", "何時"),
    ("几时", "何时"),
    ("邊度", "哪裡"),
    ("边度", "哪里"),
    ("邊個", "誰"),
    ("边个", "谁"),
    ("幾多錢", "多少錢"),
    ("几多钱", "多少钱"),
    ("幾多", "多少"),
    ("几多", "多少"),
    ("佢哋", "他們"),
    ("佢地", "他們"),
    ("佢们", "他们"),
    ("而家", "現在"),
    ("冇", "沒有"),
    ("咩", "什麼"),
    ("喺", "在"),
    ("嘅", "的"),
    ("佢", "他"),
)
# 係 as a written word's part, never "is": these stay as written
_NOT_IS_BEFORE = "關联聯干幹維维"  # 關係 聯係 干係 維係
_NOT_IS_AFTER = "數数"  # 係數 (coefficient)
# 唔 + one of these is "not + verb" (唔係 唔會 唔使 唔知 …); 唔好 is "don't": 不要
_VERBISH = "是係会會能可需用使知明識识想要去來来見见記记肯准收得夠够在喺講讲做睇"
_SPECIAL_NOT = (("唔好", "不要"), ("唔使", "不用"), ("唔係", "不是"))


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    words = [w for w, _ in sorted(WORDS, key=lambda pair: -len(pair[0]))]
    return re.compile("|".join(re.escape(w) for w in words))


_IS = re.compile(rf"(?<![{_NOT_IS_BEFORE}])係(?![{_NOT_IS_AFTER}])")
_NOT = re.compile(rf"唔(?=[{_VERBISH}])")
_WRITTEN = dict(WORDS)


def has_cantonese(text: str) -> bool:
    """True when `text` has a word of the table (or 係 / 唔 used colloquially)."""
    return bool(
        _pattern().search(text)
        or _IS.search(text)
        or _NOT.search(text)
        or any(colloquial in text for colloquial, _ in _SPECIAL_NOT)
    )


def written_chinese(text: str) -> str:
    """`text` with its colloquial Cantonese words as written Chinese (other text unchanged),
    in the text's own script (冇 is 沒有 in a Traditional question, 没有 in a Simplified one)."""
    if not has_cantonese(text):
        return text
    simplified = detect_language(text) == ZH_HANS
    for colloquial, negated in _SPECIAL_NOT:
        text = text.replace(colloquial, negated)
    text = _NOT.sub("不", text)
    text = _IS.sub("是", text)

    def in_writing(found: re.Match[str]) -> str:
        word = _WRITTEN[found.group(0)]
        return to_simplified(word) if simplified else word

    return _pattern().sub(in_writing, text)
