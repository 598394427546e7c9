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

The model reads the kept sentences numbered (`numbered`, prompt synth.v6:
`[2.3]` is the third sentence of source 2's stored text, split as
graph.quotes.passage_sentences splits it) and cites them by id; the claim
judge resolves an id to that stored sentence, so cutting can lose an answer,
never let a false one through. (`focused` gives the kept sentences as one
text, gaps marked, for a model quoting them.)
"""

from __future__ import annotations

import asyncio
import math
import re
from typing import Any

from graph.cross_language import similarities, topic
from graph.injection import instruction_like
from graph.quotes import passage_sentences
from textkit.answer_type import FREELY_CLAIMED, answer_kinds, holds
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


def kept(
    sentences: list[str], scores: list[float], budget: int, allowed: list[int] | None = None
) -> list[int]:
    """The indexes of the best-scoring sentences within `budget` tokens, in their order
    (of the `allowed` ones only, when given)."""
    pool = range(len(sentences)) if allowed is None else allowed
    order = sorted(pool, key=lambda i: -scores[i])
    if not order:
        return []
    best = order[0]
    keep = {best}
    used = estimate_tokens(sentences[best])
    # the sentence after the best first: an answer often runs on into it
    follow = [best + 1] if best + 1 in pool else []
    # a sentence well below the best bears on something else: it costs reading time only
    floor = KEEP_SHARE * scores[best]
    for i in follow + [i for i in order[1:] if i not in follow and scores[i] >= floor]:
        cost = estimate_tokens(sentences[i])
        if used + cost <= budget:
            keep.add(i)
            used += cost
    return sorted(keep)


def cut(sentences: list[str], scores: list[float], budget: int) -> str:
    """The best-scoring sentences within `budget` tokens, in their order, gaps marked."""
    return _joined(sentences, kept(sentences, scores, budget))


def answering(parts: list[str], kinds: list[str]) -> list[int] | None:
    """The indexes of the sentences that hold a kind of answer asked (`kinds`,
    textkit.answer_type.answer_kinds), each with the sentence before it (where "It
    opened in 2004" names what opened); None when no kind is asked (any may answer)."""
    if not kinds:
        return None
    out: set[int] = set()
    for i, part in enumerate(parts):
        if any(holds(part, kind) for kind in kinds):
            out.update({i - 1, i} if i else {i})
    return sorted(out)


def answering_passages(question: str, evidence: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The passages holding a sentence of the kind of answer `question` asks (a price, a
    date, ...; all of them when it asks none): a claim on any other is dropped whatever
    it says (graph.claim_question), so offering one costs its reading time only."""
    # (what to bring is said in words of its own: any passage may say it)
    kinds = [k for k in answer_kinds(question) if k not in FREELY_CLAIMED]
    if not kinds:
        return list(evidence)
    return [
        e
        for e in evidence
        if any(holds(p, k) for p in passage_sentences(str(e["text"])) for k in kinds)
    ]


def _tokens(text: str, parts: list[str], allowed: list[int] | None) -> int:
    """The estimated tokens of a passage's text, or of its `allowed` sentences."""
    if allowed is None:
        return estimate_tokens(text)
    return estimate_tokens(" ".join(parts[j] for j in allowed))


async def _selected(
    question: str, items: list[dict[str, Any]], embedder: Any, kinds: list[str] | None = None
) -> tuple[list[list[str]], list[list[int]]]:
    """Each passage's sentences, and the indexes of those kept: all of a short one, or, when
    `kinds` of answer are asked, those holding one and the sentence before each."""
    split = [passage_sentences(str(e["text"])) for e in items]
    allowed = [answering(parts, kinds or []) for parts in split]
    keep = [list(range(len(p))) if a is None else a for p, a in zip(split, allowed, strict=True)]
    long = [
        i
        for i, (e, parts) in enumerate(zip(items, split, strict=True))
        if _tokens(str(e["text"]), parts, allowed[i]) > PASSAGE_TOKENS and len(keep[i]) > 1
    ]
    if not long:
        return split, keep
    pairs = [(split[i][j], topic(items[i])) for i in long for j in keep[i]]
    cosines = await similarities(embedder, question, list(dict.fromkeys(pairs))[:MAX_EMBEDDED])

    def scored() -> list[list[float]]:
        wanted = set(keyword_tokens(question))
        return [[_score(wanted, s, cosines.get(s, 0.0)) for s in split[i]] for i in long]

    scores = await asyncio.to_thread(scored)
    for i, row in zip(long, scores, strict=True):
        keep[i] = kept(split[i], row, PASSAGE_TOKENS, allowed[i])
    return split, keep


async def focused(
    question: str, evidence: list[dict[str, Any]], embedder: Any = None
) -> list[dict[str, Any]]:
    """The first `MAX_PASSAGES` passages, a long one cut to its sentences that bear on
    `question` (copies: the evidence itself is unchanged)."""
    items = evidence[:MAX_PASSAGES]
    split, keep = await _selected(question, items, embedder)
    out = list(items)
    for i, (parts, indexes) in enumerate(zip(split, keep, strict=True)):
        if len(indexes) < len(parts):
            out[i] = {**items[i], "text": _joined(parts, indexes)}
    return out


def _joined(parts: list[str], indexes: list[int]) -> str:
    """The kept sentences in their order, a gap between two not adjacent marked."""
    out = GAP.lstrip() if indexes[0] > 0 else ""
    for k, i in enumerate(indexes):
        if k:
            out += " " if i == indexes[k - 1] + 1 else GAP
        out += parts[i]
    return out + (GAP.rstrip() if indexes[-1] < len(parts) - 1 else "")


async def numbered(
    question: str, evidence: list[dict[str, Any]], embedder: Any = None, by_kind: bool = False
) -> list[dict[str, Any]]:
    """The first `MAX_PASSAGES` passages, each with `sentences`: the (id, sentence) pairs the
    model reads, id `n.i` the i-th sentence of source n's stored text (graph.quotes.
    passage_sentences, as the claim judge resolves it); a long passage keeps the sentences
    bearing on `question`, a sentence addressed to the assistant is never offered, and
    one an earlier passage offered already (chunks overlap) is not offered again."""
    items = evidence[:MAX_PASSAGES]
    # by_kind: only the sentences holding the kind of answer asked, and those before them
    kinds = [k for k in answer_kinds(question) if k not in FREELY_CLAIMED] if by_kind else None
    split, keep = await _selected(question, items, embedder, kinds)
    out = []
    seen: set[str] = set()  # the sentences offered already, as the model reads them
    for n, (item, parts, indexes) in enumerate(zip(items, split, keep, strict=True), 1):
        # overlapping chunks of one document repeat sentences: each is read once, under
        # its first id (reading it twice costs prompt time, and two ids for one sentence
        # leave a small model unsure which to cite)
        sentences = [(sid, s) for sid, s in offered(n, parts, indexes) if _key(s) not in seen]
        seen.update(_key(s) for _, s in sentences)
        out.append({**item, "sentences": sentences})
    return out


def _key(sentence: str) -> str:
    """A sentence as the prompt shows it (graph.llm puts each on one line)."""
    return " ".join(sentence.split())


def offered(n: int, parts: list[str], indexes: list[int] | None = None) -> list[tuple[str, str]]:
    """Source n's sentences at `indexes` (default: all) with their ids, those addressed to
    the assistant left out."""
    chosen = range(len(parts)) if indexes is None else indexes
    return [(f"{n}.{i + 1}", parts[i]) for i in chosen if not instruction_like(parts[i])]
