"""Script and width normalisation, language detection and keyword tokens.

Keyword search must not care whether a question is written in Traditional or
Simplified Chinese, so both documents and queries are converted to one script
(Simplified, via OpenCC) before jieba segments them.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

import hanzidentifier

EN, ZH_HANT, ZH_HANS = "en", "zh-hant", "zh-hans"
LANGUAGES = (EN, ZH_HANT, ZH_HANS)

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORDLIKE = re.compile(r"[\w\u3400-\u9fff]", re.UNICODE)
_SPACES = re.compile(r"[ \t\u3000\xa0]+")
_jieba_lock = threading.Lock()


@lru_cache(maxsize=4)
def _converter(config: str) -> Any:
    import opencc

    return opencc.OpenCC(config)


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    with _jieba_lock:  # the first call builds the prefix dict; do it once
        jieba.initialize()
    return jieba


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """Question and function words (lower-case, Simplified): how something is asked, not what.

    Kept in `stopwords.txt` beside this module, one word a line.
    """
    path = Path(__file__).with_name("stopwords.txt")
    words = (w.strip() for w in path.read_text("utf-8").splitlines())
    return frozenset(w for w in words if w and not w.startswith("#"))


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
    return str(_converter("s2tw").convert(text))


def to_script(text: str, language: str) -> str:
    """Convert Chinese text into the script of `language` (en leaves text alone)."""
    if language == ZH_HANT:
        return to_traditional(text)
    if language == ZH_HANS:
        return to_simplified(text)
    return text


def detect_language(text: str) -> str:
    """en, zh-hant or zh-hans: the script matters, the answer goes back in it."""
    cjk = _CJK.findall(text)
    letters = sum(1 for ch in text if ch.isalpha())
    if not cjk or len(cjk) < 0.2 * max(letters, 1):
        return EN
    sample = "".join(cjk)
    verdict = hanzidentifier.identify(sample)
    if verdict == hanzidentifier.SIMPLIFIED:
        return ZH_HANS
    if verdict == hanzidentifier.TRADITIONAL:
        return ZH_HANT
    if verdict == hanzidentifier.MIXED:
        trad = sum(1 for ch in cjk if hanzidentifier.is_traditional(ch))
        simp = sum(1 for ch in cjk if hanzidentifier.is_simplified(ch))
        return ZH_HANS if simp > trad else ZH_HANT
    return ZH_HANT  # characters shared by both scripts: Traditional is this bot's home


def singular(token: str) -> str:
    """A light English plural folding ("costs" → "cost", "fees" → "fee", "cities" → "city")."""
    if len(token) <= 3 or not token.isascii() or not token.isalpha():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def keyword_tokens(text: str) -> list[str]:
    """Script-neutral keyword tokens: width-normalised, lower-cased, Simplified, jieba-cut."""
    norm = to_simplified(normalise_width(text).lower())
    tokens = _jieba().lcut_for_search(norm)
    return [singular(t) for t in (tok.strip() for tok in tokens) if t and _WORDLIKE.search(t)]


def term_frequencies(tokens: list[str]) -> Counter[str]:
    """How often each token occurs."""
    return Counter(tokens)


def tsvector_literal(tokens: list[str]) -> str:
    """A `tsvector` literal holding exactly these tokens with their positions.

    Built here rather than by `to_tsvector` so Postgres's parser cannot re-split
    jieba's tokens (it would break "covid-19" or mixed-script words apart).
    """
    positions: dict[str, list[int]] = {}
    for pos, tok in enumerate(tokens[:16383], start=1):
        positions.setdefault(tok, []).append(pos)
    parts = []
    for tok, pos_list in positions.items():
        quoted = tok.replace("\\", "\\\\").replace("'", "''")
        parts.append(f"'{quoted}':{','.join(str(p) for p in pos_list[:256])}")
    return " ".join(parts)


def tsquery_literal(terms: list[str]) -> str:
    """An OR `tsquery` literal over exact terms."""
    return " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in terms)
