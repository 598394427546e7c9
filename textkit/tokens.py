"""Keyword tokens: script-neutral jieba cuts with light English plural folding, and stopwords."""

from __future__ import annotations

import logging
import marshal
import os
import re
import stat
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from textkit.scripts import normalise_width, to_simplified

_WORDLIKE = re.compile(r"[\w\u3400-\u9fff]", re.UNICODE)
_jieba_lock = threading.Lock()
logger = logging.getLogger(__name__)
CACHE_MAX_BYTES = 64 * 2**20  # the largest jieba cache read here (the default makes 9 MB)


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
    worker) pays it once at start. The cache sits in a shared temporary
    directory, so only a regular file of this user's, writable by no one else
    and of a sane size, is read. False, leaving it to jieba as before, when
    there is no such cache or jieba is set up otherwise (another dictionary or
    cache).
    """
    tokenizer = jieba.dt
    if tokenizer.initialized or tokenizer.cache_file or tokenizer.tmp_dir:
        return bool(tokenizer.initialized)
    if tokenizer.dictionary != jieba.DEFAULT_DICT:
        return False
    # where and under which name jieba keeps the default dictionary's cache
    loaded = _read_own_file(Path(tempfile.gettempdir()) / "jieba.cache", CACHE_MAX_BYTES)
    try:
        freq, total = marshal.loads(loaded) if loaded else (None, None)
    except Exception:  # damaged or not jieba's (jieba itself gives up as widely)
        freq = total = None
    if not isinstance(freq, dict) or not freq or not isinstance(total, int) or total <= 0:
        logger.debug("jieba's dictionary cache not read here: left to jieba")
        return False
    with tokenizer.lock:
        if not tokenizer.initialized:  # another thread may have set it up meanwhile
            tokenizer.FREQ, tokenizer.total = freq, total
            tokenizer.initialized = True
    return True


def _read_own_file(path: Path, limit: int) -> bytes | None:
    """The bytes of `path` if it is a regular file of this user's that no one else may
    write, of at most `limit` bytes; else None. Never follows a link or waits on a pipe."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_uid != os.geteuid()
            or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
            or not 0 < info.st_size <= limit
        ):
            return None
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


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
    if len(token) <= 3 or not token.isascii() or not token.isalpha() or token in stopwords():
        # a stopword stays whole, so it is still known as one: "does" is no "doe"
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
    return [token for token, _, _ in _spans(text)]


def keyword_spans(text: str) -> list[tuple[str, int, int]]:
    """`keyword_tokens` with where each lies in the normalised text (start, end): the
    search cut gives a word and its parts (定居者: 定居, 居者, 定居者), and only the
    spans tell a part from the same word standing alone elsewhere."""
    if len(text) <= CACHED_MAX_CHARS:
        return list(_cached_spans(text))
    return _spans(text)


@lru_cache(maxsize=CACHED_TEXTS)
def _cached_tokens(text: str) -> tuple[str, ...]:
    # read off the spans' cut: a text whose tokens and spans are both asked is cut once
    return tuple(token for token, _, _ in _cached_spans(text))


@lru_cache(maxsize=CACHED_TEXTS)
def _cached_spans(text: str) -> tuple[tuple[str, int, int], ...]:
    return tuple(_spans(text))


def _spans(text: str) -> list[tuple[str, int, int]]:
    norm = to_simplified(normalise_width(text).lower())
    # the search cut with positions: the tokens `lcut_for_search` gives, in its order
    cut = _jieba().tokenize(norm, mode="search")
    return [
        (singular(token.strip()), start, end)
        for token, start, end in cut
        if token.strip() and _WORDLIKE.search(token)
    ]
