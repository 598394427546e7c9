"""Support scoring of search hits: the question's key terms together in a short window.

A passage on the right topic often holds most of the question's words
somewhere (a sibling paragraph of the same article does), but the passage
that answers holds them *together*: the sentence the answer is in. `support`
is the largest share of the query's content-term weight (IDF) found within two
consecutive sentences, with the document title and heading counted in every
window (they name the topic the whole passage is about). Question words
(哪一個, 誰, 多少, what, how…; textkit.question_words) are not content: they
never appear in the answer. Questions asking for a number or a date ("多少",
"何時", "how many", "when") are only supported by a window holding one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from storage.ranking import relevance
from storage.search_types import SearchHit
from textkit.answer_type import holds
from textkit.overlap import has_chinese, presence, stem
from textkit.question_words import content_query
from textkit.scripts import plain
from textkit.sentences import split_sentences
from textkit.tokens import keyword_tokens

WINDOW_SENTENCES = 2
# a number in either Chinese script (兩張, 一萬 as 两张, 一万) or in full width; a list
# marker or a footnote mark (①, ¹) is none
_HAS_NUMBER = re.compile(
    r"[0-9０-９零一二三四五六七八九十百千万萬亿億两兩半]|\b(?:one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|hundred|thousand|million|billion|dozen|several|century|january|february|"
    r"march|april|may|june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)


def window_support(
    weights: dict[str, float],
    body: str,
    context: str = "",
    asks_number: bool = False,
    price_terms: frozenset[str] = frozenset(),
    heading: str = "",
) -> float:
    """The best share of `weights` (term → IDF) covered by a short window of `body`.

    `context` (title, heading) counts in every window. `price_terms`, the words naming
    the price asked ("cost", 钱: textkit.answer_type.price_words), are held by a window
    with a sentence giving a price of what the question names, it or its section
    `heading` (`price_held`): "The yearly rent is 40 euros" under "Plots" says what a
    plot costs.
    """
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    head = plain(context)
    # A Chinese term is present when it is a substring of the window's text, and
    # every token of a window is one: only other terms need the sentences cut
    # (jieba, most of a search's CPU time when every question term is Chinese).
    cut_needed = any(not has_chinese(t) for t in weights)
    head_tokens = frozenset(keyword_tokens(context)) if context and cut_needed else frozenset()
    sentences = split_sentences(body) or [body]
    # each sentence is cut and normalised once; a window is the union of its sentences'
    cut = [frozenset(keyword_tokens(s)) if cut_needed else frozenset() for s in sentences]
    normal = [plain(s) for s in sentences]
    others = [t for t in weights if t not in price_terms]
    held_price = (
        [price_held(s, heading, others) for s in sentences]
        if price_terms and others
        else [False] * len(sentences)
    )
    best = 0.0
    for start in range(len(sentences)):
        end = start + WINDOW_SENTENCES
        if asks_number and not any(_HAS_NUMBER.search(s) for s in sentences[start:end]):
            continue
        tokens = head_tokens.union(*cut[start:end])
        stems = frozenset(stem(t) for t in tokens)
        text = " ".join([*normal[start:end], head])
        priced = any(held_price[start:end])
        share = (
            sum(
                w * (1.0 if priced and t in price_terms else presence(t, text, tokens, stems))
                for t, w in weights.items()
            )
            / total
        )
        best = max(best, share)
        if end >= len(sentences):
            break  # later windows are parts of this one
    return round(best, 4)


def price_held(sentence: str, heading: str, terms: Sequence[str]) -> bool:
    """True when `sentence` gives a price and it or its section `heading` holds one of
    `terms` (the question's words besides those naming the price) whole: the price is of
    what the question asks about ("The yearly rent is 40 euros" under "Plots" for a plot;
    under "Plots", nothing for "joining the waiting list"). Not the document's title: it
    names what every sentence of the document is about, a price of another thing too. A
    one-character Chinese word (不, 要) names nothing."""
    if not holds(sentence, "price"):
        return False
    named = [t for t in terms if len(t) > 1 or not has_chinese(t)]
    return any(_holds_term(t, sentence) or _holds_term(t, heading) for t in named)


def _holds_term(term: str, text: str) -> bool:
    if not text:
        return False
    return presence(term, *_analysed(text)) >= 1.0


@lru_cache(maxsize=4096)
def _analysed(text: str) -> tuple[str, frozenset[str], frozenset[str]]:
    """A sentence or heading as `presence` reads it (normalised text, tokens, stems), once:
    the price test asks it of every term, in the pool's credit and the support alike."""
    tokens = frozenset(keyword_tokens(text))
    return plain(text), tokens, frozenset(stem(t) for t in tokens)


def credit_prices(
    hits: Iterable[SearchHit],
    weights: dict[str, float],
    matched: dict[int, frozenset[str]],
    price_terms: frozenset[str],
) -> None:
    """Raise the keyword coverage (and the relevance) of each hit whose text gives a price
    of what the question names (`price_held`) by the weight of the price words it lacks
    (`matched`: the weighted terms each chunk holds, by chunk id)."""
    total = sum(weights.values()) or 1.0
    others = [t for t in weights if t not in price_terms]
    for hit in hits:
        found = matched.get(hit.chunk_id, frozenset())
        lacking = [t for t in price_terms if t in weights and t not in found]
        if not lacking or not others:
            continue
        heading = hit.heading or ""
        if any(price_held(s, heading, others) for s in split_sentences(hit.text) or [hit.text]):
            hit.coverage = round(
                min(1.0, hit.coverage + sum(weights[t] for t in lacking) / total), 4
            )
            hit.score = relevance(hit.cosine, hit.coverage, entry=hit.question is not None)


def support_tokens(question: str) -> list[str]:
    """The keyword tokens of the question's content words (what `support` weighs)."""
    return keyword_tokens(content_query(question))


def set_supports(
    hits: Sequence[SearchHit],
    weights: dict[str, float],
    number: bool,
    price_terms: frozenset[str] = frozenset(),
) -> None:
    """Each hit's `support` for the question whose content-term `weights` are given."""
    for hit in hits:
        context = f"{hit.document}\n{hit.heading or ''}"
        hit.support = window_support(
            weights, hit.text, context, number, price_terms, hit.heading or ""
        )
