"""What a search takes and gives: filters, query statistics, hits, and the filter SQL."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from storage.ranking import relevance


@dataclass(frozen=True)
class SearchFilters:
    """Optional restrictions: document language, titles, and the collections the asker reads.

    `collections` None means every collection (the console); an empty tuple, none.
    """

    language: str | None = None
    documents: tuple[str, ...] = ()
    collections: tuple[str, ...] | None = None


@dataclass(frozen=True)
class QueryTerms:
    """The query's tokens with (IDF, document frequency), and the mean chunk length."""

    idf: dict[str, tuple[float, int]]
    avgdl: float
    vectors_usable: bool = True  # the stored vectors come from this process's embedder
    support: dict[str, float] = field(default_factory=dict)  # content term → weight, for support
    # the terms naming the price asked ("cost", 钱): a passage holding a price holds them
    price: frozenset[str] = frozenset()


@dataclass
class SearchHit:
    """One retrieved chunk, best first; `score` is the thresholded relevance."""

    document: str
    chunk_id: int
    text: str
    score: float
    page: int | None
    heading: str | None = None
    language: str | None = None
    url: str | None = None  # where the document can be read, when known
    question: str | None = None  # the FAQ entry's own question, when the chunk is one
    cosine: float = 0.0
    coverage: float = 0.0
    # share of the question's content terms found together in two sentences (storage.support)
    support: float = 0.0
    # `score` minus the best `score` of another document among the ranked candidates:
    # a passage that answers usually stands out from the other documents
    lead: float = 0.0
    # written in another language than the question: judged by meaning (storage.cross_language)
    cross_language: bool = False
    fusion: float = 0.0
    ranks: dict[str, int | None] = field(default_factory=dict)
    more: list[int] = field(default_factory=list)  # the document's other matching chunks

    def as_json(self) -> dict[str, Any]:
        """The JSON shape the CLI and evaluation read."""
        return asdict(self)


def filter_sql(filters: SearchFilters) -> tuple[str, dict[str, Any]]:
    """A WHERE clause on `chunks c` alone: a join would keep the HNSW index unused."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if filters.language:
        clauses.append("c.language = :f_language")
        params["f_language"] = filters.language
    if filters.documents:
        clauses.append(
            "c.document_id IN (SELECT id FROM documents WHERE title = ANY(:f_documents))"
        )
        params["f_documents"] = list(filters.documents)
    if filters.collections is not None:
        clauses.append(
            "c.document_id IN (SELECT id FROM documents WHERE collection = ANY(:f_collections))"
        )
        params["f_collections"] = list(filters.collections)
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def set_leads(hits: list[SearchHit]) -> None:
    """Each hit's `lead`: its keyword relevance minus the best of any other document's hit.

    An FAQ entry is its own unit: entries on one page compete with each other.
    The lead is measured on one scale for every hit (keyword relevance, not an
    entry's meaning-based `score`): an uploaded entry does not lead prose
    documents by the way its score is computed.
    """
    best: dict[tuple[str, str | None], float] = {}
    for h in hits:
        best[_unit(h)] = max(best.get(_unit(h), 0.0), _words(h))
    ranked = sorted(best.items(), key=lambda kv: -kv[1])[:2]
    for h in hits:
        other = next((score for unit, score in ranked if unit != _unit(h)), 0.0)
        h.lead = round(_words(h) - other, 4)


def _words(hit: SearchHit) -> float:
    return relevance(hit.cosine, hit.coverage) if hit.question else hit.score


def _unit(hit: SearchHit) -> tuple[str, str | None]:
    return (hit.document, hit.question)


def per_document_hits(
    hits: list[SearchHit], top_k: int, per_document: int, by_score: bool = True
) -> list[SearchHit]:
    """`hits` ordered by `score` (fused ranking breaks ties; `by_score` False: by the
    fusion alone), at most `per_document` per document, `top_k` in all; each kept
    hit lists its document's other chunks in `more`.
    """
    ordered = sorted(hits, key=lambda h: (-h.score, -h.fusion) if by_score else -h.fusion)
    kept: dict[str, list[SearchHit]] = {}
    extra: dict[str, list[int]] = {}
    for hit in ordered:
        group = kept.setdefault(hit.document, [])
        if len(group) < max(1, per_document):
            group.append(hit)
        else:
            extra.setdefault(hit.document, []).append(hit.chunk_id)
    chosen = {h.chunk_id for group in kept.values() for h in group}
    out = [h for h in ordered if h.chunk_id in chosen]
    for hit in out:
        hit.more = extra.get(hit.document, [])
    return out[:top_k]
