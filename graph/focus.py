"""The passages as the model reads them: the best few, each cut to what bears on the question.

On a small model served from one CPU thread, reading the prompt is most of a
turn (about 2,500 tokens for five DRCD passages, a minute and more), and a
long prompt also leaves a small model less sure of what to quote. So the
answer's request carries the first `MAX_PASSAGES` passages of the graded
evidence (grounded ones first, as retrieval_checker orders them; the
extractive answer reads as many), and a passage longer than
`PASSAGE_TOKENS` is cut to its sentences that bear most on the question, in
their own order, a gap between two kept sentences marked "…":

- a sentence scores the question's keywords it holds (per square root of its
  own, as the extractive answer ranks sentences) plus `SIMILARITY_WEIGHT`
  times its embedding cosine with the question, read under its document's
  title (graph.cross_language.similarities: a passage in another language
  shares no word, and is ranked by meaning alone);
- the best sentence is kept, then the one after it (an answer often runs on
  into it), then the others scoring at least `KEEP_SHARE` of the best, while
  the passage stays within its budget.

A quote still counts only when it is in the stored passage (graph.quotes
looks it up in the whole text), so cutting can lose an answer, never let a
false one through.
"""

from __future__ import annotations

import asyncio
import math
import re
from typing import Any

from graph.cross_language import similarities, topic
from textkit.sentences import split_sentences
from textkit.tokens import keyword_tokens

MAX_PASSAGES = 3
PASSAGE_TOKENS = 180  # estimated prompt tokens a passage may take
SIMILARITY_WEIGHT = 4.0
KEEP_SHARE = 0.6  # other sentences kept score at least this share of the best one's
MAX_EMBEDDED = 60  # sentences embedded per turn (~1.7 ms each)
GAP = " … "
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """About how many tokens a Qwen/GPT-style tokenizer makes of `text`: a CJK
    character about one, other text about one per four characters."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def _score(wanted: set[str], sentence: str, cosine: float) -> float:
    tokens = set(keyword_tokens(sentence))
    hits = len(wanted & tokens) / math.sqrt(len(tokens)) if tokens else 0.0
    return hits + SIMILARITY_WEIGHT * cosine


def cut(sentences: list[str], scores: list[float], budget: int) -> str:
    """The best-scoring sentences within `budget` tokens, in their order, gaps marked."""
    order = sorted(range(len(sentences)), key=lambda i: -scores[i])
    best = order[0]
    keep = {best}
    used = estimate_tokens(sentences[best])
    # the sentence after the best first: an answer often runs on into it
    follow = [best + 1] if best + 1 < len(sentences) else []
    # a sentence well below the best bears on something else: it costs reading time only
    floor = KEEP_SHARE * scores[best]
    for i in follow + [i for i in order[1:] if i not in follow and scores[i] >= floor]:
        cost = estimate_tokens(sentences[i])
        if used + cost <= budget:
            keep.add(i)
            used += cost
    out = ""
    previous = -1
    for i in sorted(keep):
        if out:
            out += " " if i == previous + 1 else GAP
        elif i > 0:
            out = GAP.lstrip()
        out += sentences[i]
        previous = i
    return out + (GAP.rstrip() if previous < len(sentences) - 1 else "")


async def focused(
    question: str, evidence: list[dict[str, Any]], embedder: Any = None
) -> list[dict[str, Any]]:
    """The first `MAX_PASSAGES` passages, a long one cut to its sentences that bear on
    `question` (copies: the evidence itself is unchanged)."""
    items = evidence[:MAX_PASSAGES]
    split = [split_sentences(str(e["text"])) for e in items]
    long = [
        i
        for i, (e, parts) in enumerate(zip(items, split, strict=True))
        if estimate_tokens(str(e["text"])) > PASSAGE_TOKENS and len(parts) > 1
    ]
    if not long:
        return list(items)
    pairs = [(s, topic(items[i])) for i in long for s in split[i]]
    cosines = await similarities(embedder, question, list(dict.fromkeys(pairs))[:MAX_EMBEDDED])

    def scored() -> list[list[float]]:
        wanted = set(keyword_tokens(question))
        return [[_score(wanted, s, cosines.get(s, 0.0)) for s in split[i]] for i in long]

    scores = await asyncio.to_thread(scored)
    out = list(items)
    for i, row in zip(long, scores, strict=True):
        out[i] = {**items[i], "text": cut(split[i], row, PASSAGE_TOKENS)}
    return out
