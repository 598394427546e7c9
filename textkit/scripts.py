"""Chinese scripts and widths: OpenCC conversion, width folding, language detection.

Keyword search must not care whether a question is written in Traditional or
Simplified Chinese, so both documents and queries are converted to one script
(Simplified, via OpenCC) before they are cut into words.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

import hanzidentifier

EN, ZH_HANT, ZH_HANS = "en", "zh-hant", "zh-hans"
LANGUAGES = (EN, ZH_HANT, ZH_HANS)

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_SPACES = re.compile(r"[ \t\u3000\xa0]+")
# OpenCC's phrase table reads 换发 as a change of hairstyle (換髮); in the documents
# a bot like this reads it is a renewal (換發護照). Hair stays hair before 型,
# 色, 夾 or 圈 (a hairstyle, a hair colour, a hair clip, a hair tie).
_RENEWAL = re.compile("換髮(?![型色夾圈])")


@lru_cache(maxsize=4)
def _converter(config: str) -> Any:
    import opencc  # lazy: only a process that converts text pays for loading OpenCC

    return opencc.OpenCC(config)


def normalise_width(text: str) -> str:
    """NFKC (full-width letters and digits to ASCII), folded spaces, stripped."""
    text = unicodedata.normalize("NFKC", text)
    return _SPACES.sub(" ", text).strip()


def to_simplified(text: str) -> str:
    """Traditional → Simplified Chinese; other text passes through unchanged."""
    return str(_converter("t2s").convert(text))


def to_traditional(text: str) -> str:
    """Simplified → Traditional Chinese; other text passes through unchanged.

    `s2tw` rather than `s2t`: readers expect today's standard glyphs (為, not
    OpenCC's default 爲); it converts characters only, never vocabulary.
    """
    return _RENEWAL.sub("換發", str(_converter("s2tw").convert(text)))


def to_script(text: str, language: str) -> str:
    """Convert Chinese text into the script of `language` (en leaves text alone)."""
    if language == ZH_HANT:
        return to_traditional(text)
    if language == ZH_HANS:
        return to_simplified(text)
    return text


def plain(text: str) -> str:
    """Lower-cased, width-normalised, Simplified text (what terms are matched on)."""
    return to_simplified(normalise_width(text)).lower()


def detect_language(text: str, shared: str = ZH_HANT) -> str:
    """en, zh-hant or zh-hans: the script matters, the answer goes back in it. Chinese
    written only in characters both scripts share (押金多少？) is `shared`: Traditional,
    this bot's home, unless the caller knows better (the conversation's script)."""
    cjk = _CJK.findall(text)
    letters = sum(1 for ch in text if ch.isalpha())
    if not cjk or len(cjk) < 0.2 * max(letters, 1):
        return EN
    return _script_of(cjk) or shared


def has_chinese(text: str) -> bool:
    """True when `text` holds a Chinese character."""
    return _CJK.search(text) is not None


def chinese_script(text: str) -> str | None:
    """zh-hant or zh-hans by the text's Chinese characters; None when it has none or only
    characters both scripts share."""
    return _script_of(_CJK.findall(text))


def _script_of(cjk: list[str]) -> str | None:
    if not cjk:
        return None
    verdict = hanzidentifier.identify("".join(cjk))
    if verdict == hanzidentifier.SIMPLIFIED:
        return ZH_HANS
    if verdict == hanzidentifier.TRADITIONAL:
        return ZH_HANT
    if verdict == hanzidentifier.MIXED:
        trad = sum(1 for ch in cjk if hanzidentifier.is_traditional(ch))
        simp = sum(1 for ch in cjk if hanzidentifier.is_simplified(ch))
        return ZH_HANS if simp > trad else ZH_HANT
    return None


def conversation_script(history: list[dict[str, str]]) -> str:
    """The Chinese script the user last wrote in (their latest message whose characters
    tell), Traditional when none does: what a message in shared characters is read in."""
    for message in reversed(history):
        if message.get("role") == "user":
            script = chinese_script(message.get("content", ""))
            if script:
                return script
    return ZH_HANT
