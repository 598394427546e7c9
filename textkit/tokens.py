"""Keyword tokens: script-neutral jieba cuts with light English plural folding, and stopwords."""

from __future__ import annotations

import logging
import marshal
import re
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from textkit.scripts import normalise_width, to_simplified

_WORDLIKE = re.compile(r"[\w\u3400-\u9fff]", re.UNICODE)
_jieba_lock = threading.Lock()


@lru_cache(maxsize=1)
def _jieba() -> Any:
    import jieba  # lazy: importing and initialising jieba takes about a second (start-up cost)

    jieba.setLogLevel(logging.WARNING)
    with _jieba_lock:  # the first call builds the prefix dict; do it once
        if not _load_dictionary_cache(jieba):
            jieba.initialize()  # builds the cache the next process reads
    return jieba


def _load_dictionary_cache(jieba: Any) -> bool:
    """jieba's default dictionary from the cache jieba itself wrote, read whole first.

    jieba unmarshals the 9 MB cache straight from the open file, which takes
    0.8–1.5 s; read into memory first, the same data takes about 0.3 s. Every
    process that cuts text (the serving process, each turn and ingestion
    worker) pays it once at start. False, leaving it to jieba, when there is no
    usable cache yet or jieba is set up otherwise (another dictionary or cache).
    """
    tokenizer = jieba.dt
    if tokenizer.initialized or tokenizer.cache_file or tokenizer.tmp_dir:
        return tokenizer.initialized
    if tokenizer.dictionary != jieba.DEFAULT_DICT:
        return False
    try:  # where and under which name jieba keeps the default dictionary's cache
        data = (Path(tempfile.gettempdir()) / "jieba.cache").read_bytes()
        freq, total = marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError):
        return False
    if not isinstance(freq, dict) or not isinstance(total, int) or not freq:
        return False
    with tokenizer.lock:
        tokenizer.FREQ, tokenizer.total = freq, total
        tokenizer.initialized = True
    return True


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """Question and function words (lower-case, Simplified): how something is asked, not what.

    Kept in `stopwords.txt` beside this module, one word a line.
    """
    path = Path(__file__).with_name("stopwords.txt")
    words = (w.strip() for w in path.read_text("utf-8").splitlines())
    return frozenset(w for w in words if w and not w.startswith("#"))


def singular(token: str) -> str:
    """A light English plural folding ("costs" → "cost", "fees" → "fee", "cities" → "city")."""
    if len(token) <= 3 or not token.isascii() or not token.isalpha():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


# A turn cuts the same passages as the turns before it (the guard, the search's support,
# the citation checks): texts up to a chunk's length are kept, the least recent dropped.
CACHED_TEXTS = 1024
CACHED_MAX_CHARS = 1000


def keyword_tokens(text: str) -> list[str]:
    """Script-neutral keyword tokens: width-normalised, lower-cased, Simplified, jieba-cut."""
    if len(text) <= CACHED_MAX_CHARS:
        return list(_cached_tokens(text))
    return _tokens(text)


@lru_cache(maxsize=CACHED_TEXTS)
def _cached_tokens(text: str) -> tuple[str, ...]:
    return tuple(_tokens(text))


def _tokens(text: str) -> list[str]:
    norm = to_simplified(normalise_width(text).lower())
    tokens = _jieba().lcut_for_search(norm)
    return [singular(t) for t in (tok.strip() for tok in tokens) if t and _WORDLIKE.search(t)]
