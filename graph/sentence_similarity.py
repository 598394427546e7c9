"""How close each sentence an extractive answer may quote is to the question.

Sentences in the question's language by cosine (the few sharing the most of its
words); sentences of passages in another language as the evidence test scored them
(graph.cross_sentences: meaning, the question's words by the dictionary, answer type).
"""

from __future__ import annotations

import asyncio
from typing import Any

from graph.cross_language import similarities
from graph.cross_sentences import sentence_scores
from textkit.bilingual import available

MAX_EMBEDDED = 12  # sentences embedded per answer (~1.7 ms each on 2 CPU cores)
# sentences of passages in another language share no word to rank them by: all of
# them are embedded, up to this many
MAX_EMBEDDED_CROSS = 30
# evidence index, position, sentence, its keyword tokens, its context (section and title)
Candidate = tuple[int, int, str, frozenset[str], str]


async def sentence_similarity(
    embedder: Any,
    question: str,
    wanted: set[str],
    candidates: list[Candidate],
    cross: frozenset[int] = frozenset(),
    topics: dict[int, str] | None = None,
) -> dict[str, float]:
    """Cosine of candidate sentences with the question (one batched embedding call).

    Only the `MAX_EMBEDDED` sentences sharing the most of the question's
    keywords (`wanted`; then the best-ranked evidence first) are embedded: a sentence
    with no shared word rarely beats them, and embedding every sentence of
    three long passages doubled the turn's time. The sentences of passages in
    another language (evidence indexes `cross`) share no word: up to
    `MAX_EMBEDDED_CROSS` of them are embedded whatever their words. The
    question's own vector comes from the embedder's cache (search embedded it).
    """
    if embedder is None:
        return {}
    topics = topics or {}
    ranked = sorted(candidates, key=lambda c: (-len(wanted & c[3]), c[0], c[1]))
    sentences = list(dict.fromkeys(c[2] for c in ranked if c[0] not in cross))[:MAX_EMBEDDED]
    others = list(dict.fromkeys((c[2], topics[c[0]]) for c in candidates if c[0] in cross))
    others = others[:MAX_EMBEDDED_CROSS]
    found: dict[str, float] = {}
    if sentences:
        vectors = await asyncio.to_thread(embedder.embed_documents, [question, *sentences])
        q = vectors[0]
        found = {
            s: sum(a * b for a, b in zip(q, v, strict=True))
            for s, v in zip(sentences, vectors[1:], strict=True)
        }
    # another language's sentences scored as the evidence test scored them
    # (graph.cross_sentences: meaning, the question's words by the dictionary, answer type)
    meant = await similarities(embedder, question, others)
    passages = [
        ([c[2] for c in candidates if c[0] == idx], topics.get(idx, "")) for idx in sorted(cross)
    ]
    scored = await asyncio.to_thread(_cross_scores, question, passages, meant)
    return {**found, **scored}


def _cross_scores(
    question: str, passages: list[tuple[list[str], str]], meant: dict[str, float]
) -> dict[str, float]:
    """Each other-language sentence's support score (graph.cross_sentences), passage by
    passage (a sentence's window is its passage's title and heading and the sentence
    before)."""
    words = available()
    out: dict[str, float] = {}
    for sentences, about in passages:
        scores = sentence_scores(question, sentences, meant, words, about)
        for sentence, score in scores.items():
            out[sentence] = max(out.get(sentence, score), score)
    return out
