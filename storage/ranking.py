"""Scoring pieces of hybrid search: fusion of the two rankings, coverage and relevance."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from textkit.tokens import stopwords

RRF_K = 60
# how many runners-up a side's best candidate is compared with (adaptive_fusion)
LEAD_CROWD = 9


def coverage_weights(idf: dict[str, tuple[float, int]]) -> dict[str, float]:
    """Weights of the query's content terms for keyword coverage.

    Question words carry no topic, so they are left out; a term the index has
    never seen weighs as much as the heaviest seen term (not its raw, huge IDF),
    so one unusual word lowers coverage without wiping it out, while a question
    made only of unseen words still scores near zero.
    """
    skip = stopwords()
    content = {t: v for t, v in idf.items() if t not in skip} or idf
    seen = [w for w, df in content.values() if df > 0]
    cap = max(seen) if seen else 1.0
    return {t: (w if df > 0 else cap) for t, (w, df) in content.items()}


def relevance(cosine: float, coverage: float, entry: bool = False) -> float:
    """The [0, 1] relevance a threshold compares against: mostly keyword coverage.

    An FAQ entry (`entry`) is relevant by meaning alone too: its cosine
    includes its own question's, and a paraphrase or another language's
    question shares few of its words. Without this, every English question
    about a Chinese entry scored under the loosest threshold (0.2 × cosine).

    Measured on DRCD and XQuAD (150 questions each): coverage alone puts the
    gold passage over 0.65 for 59-71% of questions but the best wrong passage
    for only 3-5%; the mean with the cosine blurred that (24-33% vs 0-2%, and
    47-53% of wrong passages over 0.35). The cosine keeps a small say so a
    paraphrase with few shared words can still pass the lower thresholds.
    """
    keywords = 0.8 * coverage + 0.2 * cosine
    return round(max(0.0, min(1.0, max(keywords, cosine) if entry else keywords)), 4)


def linear_fusion(
    rankings: dict[str, list[tuple[int, float]]], weights: dict[str, float]
) -> dict[int, float]:
    """Normalised score fusion: BM25 / max BM25 + w · min-max(cosine).

    The keyword side is scaled by its maximum (not min-max) so that a weak
    keyword list stays weak; a chunk missing from a list scores 0 there.
    """
    fused: dict[int, float] = {}
    keyword = rankings.get("keyword", [])
    top = max((score for _, score in keyword), default=0.0)
    for chunk_id, score in keyword:
        fused[chunk_id] = weights["keyword"] * (score / top if top > 0 else 0.0)
    vector = rankings.get("vector", [])
    if vector:
        lo = min(score for _, score in vector)
        hi = max(score for _, score in vector)
        for chunk_id, score in vector:
            norm = (score - lo) / (hi - lo) if hi > lo else 1.0
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weights["vector"] * norm
    return fused


def rrf(
    rankings: dict[str, list[tuple[int, float]]], weights: dict[str, float]
) -> dict[int, float]:
    """Weighted reciprocal-rank fusion of ranked (id, score) lists."""
    fused: dict[int, float] = {}
    for name, ranked in rankings.items():
        for rank, (chunk_id, _score) in enumerate(ranked, start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weights[name] / (RRF_K + rank)
    return fused


@dataclass(frozen=True)
class Evidence:
    """What each side of the search says about one candidate chunk.

    `bm25` is None when the keyword side did not bring the chunk; `coverage`
    is the share of the question's content-term weight the chunk holds;
    `cosine` its embedding similarity (for an FAQ entry, with its question too).
    """

    bm25: float | None
    coverage: float
    cosine: float


def lead(values: list[float], crowd: int = LEAD_CROWD) -> float:
    """How far the best of `values` stands above the mean of the next `crowd` (above 0
    when there are none: a lone candidate is ahead by its own value)."""
    ordered = sorted(values, reverse=True)
    if not ordered:
        return 0.0
    rest = ordered[1 : crowd + 1]
    return ordered[0] - (sum(rest) / len(rest) if rest else 0.0)


def adaptive_fusion(candidates: dict[int, Evidence]) -> dict[int, float]:
    """Each side weighted by how sure it is for this question, then summed.

    A chunk's keyword evidence is its coverage times its BM25 relative to the
    best (it must both hold much of the question and rank high: one common
    word matched stays weak); its vector evidence is its cosine min-max scaled
    over the candidates. Each side is as sure as its best candidate stands
    out from the next `LEAD_CROWD` on that evidence (`lead`): a keyword side
    whose partial matches are spread evenly over many passages is not sure of
    any, however much of the question one of them holds. The vector side's
    lead is on a min-max scale that would make a near-flat side look sure (a
    0.31-0.37 spread turned into 0-1 would overrule an extractive match), so
    it is also held to how far the best cosine stands above the candidates'
    median, doubled to lie on the same [0, 1] scale (unrelated texts sit near
    0.2-0.3, the same question near 0.8-0.9); the smaller of the two counts.
    The absolute cosine is not used: a small embedder gives 0.5 to a passage
    merely on the topic. When the question's rare terms are all found in one
    passage (an extractive question, a product code) the keywords lead; when
    few of its words occur anywhere (a paraphrase, another language) and one
    entry means the same, the meaning leads.

    The keyword side's weight was its best coverage before (2026-11-28). Its
    lead instead, replayed on the same candidates of every FAQ set's dev half
    (bench.faq, 2026-11-29: StackFAQ, XQuAD-FAQ both ways, the six sets of
    bench/data), equals or beats the better single side on every dev half
    where the best coverage fell 4 questions in 400 short of the vectors on
    Chinese entries asked in English, and is never below it on a held-out
    half (docs/benchmarks.md). Either side's lead alone, and the raw cosine's
    lead, each lost a dev half.
    """
    if not candidates:
        return {}
    top_bm25 = max((e.bm25 or 0.0 for e in candidates.values()), default=0.0)
    cosines = [e.cosine for e in candidates.values()]
    lo, hi = min(cosines), max(cosines)
    words = {
        cid: e.coverage * ((e.bm25 or 0.0) / top_bm25 if top_bm25 > 0 else 0.0)
        for cid, e in candidates.items()
    }
    meaning = {
        cid: (e.cosine - lo) / (hi - lo) if hi > lo else 0.0 for cid, e in candidates.items()
    }
    keyword_weight = lead(list(words.values()))
    vector_weight = min(lead(list(meaning.values())), 2 * (hi - median(cosines)))
    total = keyword_weight + vector_weight
    if total <= 0:
        return {cid: 0.0 for cid in candidates}
    return {
        cid: (keyword_weight * words[cid] + vector_weight * meaning[cid]) / total
        for cid in candidates
    }
