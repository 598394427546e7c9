"""How well one passage answers a query: its key terms together in a short window.

A passage on the right topic often holds most of the question's words
somewhere (a sibling paragraph of the same article does), but the passage
that answers holds them *together*: the sentence the answer is in. `support`
is the largest share of the query's content-term weight (IDF) found within two
consecutive sentences, with the document title and heading counted in every
window (they name the topic the whole passage is about). Question words
(哪一個, 誰, 多少, what, how…) are not content: they never appear in the answer.
Questions asking for a number or a date ("多少", "何時", "how many", "when")
are only supported by a window holding one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from storage.chunking import split_sentences
from storage.search_types import SearchHit
from storage.text import keyword_tokens, normalise_width, to_simplified

WINDOW_SENTENCES = 2
# Matched on lower-cased Simplified text, longest alternatives first.
_QUESTION_WORDS = re.compile(
    r"哪一个|哪一首|哪一位|哪一种|哪一年|哪一天|哪一|哪个|哪些|哪里|哪儿|哪|谁|何时|何年|何处|何种|"
    r"何人|何地|为何|如何|什么时候|什么|甚么|多少|多久|多长|多大|为什么|是因为|怎么|怎样|几|吗|呢|"
    r"请问|一个|一首|一位|一种"
)
_ASKS_NUMBER = re.compile(
    r"多少|几|多久|多长|多大|何年|哪一年|何时|什么时候|\bwhen\b|\bhow (?:many|much|long|old|far)\b|"
    r"\bwhat year\b",
    re.IGNORECASE,
)
_HAS_NUMBER = re.compile(
    r"[0-9零一二三四五六七八九十百千万亿两半]|\b(?:one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|hundred|thousand|million|billion|dozen|several|century|january|february|"
    r"march|april|may|june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
STEM = 5  # English words agree on their first five letters ("arrival" ~ "arriving")


def plain(text: str) -> str:
    """Lower-cased, width-normalised, Simplified text (what terms are matched on)."""
    return to_simplified(normalise_width(text)).lower()


def content_query(query: str) -> str:
    """The query without its question words (the tokens left are what an answer shares)."""
    return _QUESTION_WORDS.sub(" ", plain(query))


def stem(token: str) -> str:
    return token[:STEM] if len(token) > STEM else token


def presence(term: str, text: str, tokens: frozenset[str], stems: frozenset[str]) -> float:
    """1 when the window holds the term; half credit for part of a Chinese word.

    Chinese terms are matched as substrings (jieba cuts a question and a
    passage differently: 節慶日 / 節慶 日); a Chinese word only partly present
    earns half the share of its character pairs found.
    """
    if term in tokens:
        return 1.0
    if _CJK.search(term):
        if term in text:
            return 1.0
        pairs = [term[i : i + 2] for i in range(len(term) - 1)]
        return 0.5 * sum(p in text for p in pairs) / len(pairs) if pairs else 0.0
    return 1.0 if stem(term) in stems else 0.0


def window_support(
    weights: dict[str, float], body: str, context: str = "", asks_number: bool = False
) -> float:
    """The best share of `weights` (term → IDF) covered by a short window of `body`.

    `context` (title, heading) counts in every window.
    """
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    head = plain(context)
    head_tokens = frozenset(keyword_tokens(context)) if context else frozenset()
    sentences = split_sentences(body) or [body]
    # each sentence is cut and normalised once; a window is the union of its sentences'
    cut = [frozenset(keyword_tokens(s)) for s in sentences]
    normal = [plain(s) for s in sentences]
    best = 0.0
    for start in range(len(sentences)):
        end = start + WINDOW_SENTENCES
        if asks_number and not any(_HAS_NUMBER.search(s) for s in sentences[start:end]):
            continue
        tokens = head_tokens.union(*cut[start:end])
        stems = frozenset(stem(t) for t in tokens)
        text = " ".join([*normal[start:end], head])
        share = sum(w * presence(t, text, tokens, stems) for t, w in weights.items()) / total
        best = max(best, share)
        if end >= len(sentences):
            break  # later windows are parts of this one
    return round(best, 4)


def asks_number(query: str) -> bool:
    """True when the question asks for a number, an amount, a duration or a date."""
    return bool(_ASKS_NUMBER.search(plain(query)))


def support_tokens(question: str) -> list[str]:
    """The keyword tokens of the question's content words (what `support` weighs)."""
    return keyword_tokens(content_query(question))


def set_supports(hits: Sequence[SearchHit], weights: dict[str, float], number: bool) -> None:
    """Each hit's `support` for the question whose content-term `weights` are given."""
    for hit in hits:
        context = f"{hit.document}\n{hit.heading or ''}"
        hit.support = window_support(weights, hit.text, context, number)
