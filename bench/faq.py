"""StackFAQ for bench/answers.py: paraphrased questions over FAQ documents.

Two corpora from shared/eval/stackfaq: one entry per file ("single") and ten
entries per page ("paged", "Q: … / A: …" lines, as real FAQ pages hold them).
A hit is a result from the document holding the gold entry (paged: the page,
and the chunk's heading is the gold question). Baselines in the same run:
the same search with keywords alone (BM25 in Postgres) and vectors alone.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from bench.common import EVAL_DIR, Question, mean
from storage.search import HybridSearcher

PAGE_SIZE = 10
MODES = {"hybrid (default)": "hybrid", "keyword only (BM25)": "keyword", "vector only": "vector"}


@dataclass(frozen=True)
class FaqEntry:
    """One FAQ entry and its paraphrased user questions."""

    number: int
    question: str
    answer: str
    rephrased: tuple[str, ...]


def load_entries() -> list[FaqEntry]:
    """Every StackFAQ entry (rephrasings marked "*" skipped)."""
    data = json.loads((EVAL_DIR / "stackfaq" / "stackExchange-FAQ.json").read_text("utf-8"))
    out = []
    for i, e in enumerate(data["root"]["qapair"]):
        rephrased = tuple(r for r in e["rephr"] if r and r.strip() != "*")
        out.append(FaqEntry(i + 1, e["question"], "\n".join(e["answer"]), rephrased))
    return out


def entry_text(e: FaqEntry) -> str:
    """An entry as an FAQ page writes it."""
    return f"Q: {e.question}\nA: {e.answer}"


def corpus(entries: list[FaqEntry], paged: bool) -> tuple[dict[str, str], dict[int, str]]:
    """Documents by title, and each entry's document."""
    if not paged:
        single = {f"FAQ entry {e.number}": entry_text(e) for e in entries}
        return single, {e.number: f"FAQ entry {e.number}" for e in entries}
    docs: dict[str, str] = {}
    where: dict[int, str] = {}
    for start in range(0, len(entries), PAGE_SIZE):
        title = f"FAQ page {start // PAGE_SIZE + 1}"
        page = entries[start : start + PAGE_SIZE]
        docs[title] = "\n\n".join(entry_text(e) for e in page)
        where |= {e.number: title for e in page}
    return docs, where


def questions(
    entries: list[FaqEntry], where: dict[int, str], limit: int, seed: int
) -> list[Question]:
    """A fixed sample of paraphrased questions; `passage` is the gold document title,
    `answers` holds the gold FAQ question (to recognise the entry on a page)."""
    qs = [
        Question(f"{e.number}-{i}", r, where[e.number], (e.question,))
        for e in entries
        if e.number in where
        for i, r in enumerate(e.rephrased)
    ]
    random.Random(seed).shuffle(qs)
    return qs[:limit]


def is_hit(hit: Any, q: Question, paged: bool) -> bool:
    """The result comes from the gold entry."""
    if hit.document != q.passage:
        return False
    return not paged or q.answers[0] in f"{hit.heading or ''}\n{hit.text}"


async def recall(searcher: HybridSearcher, qs: list[Question], paged: bool) -> dict[str, Any]:
    """R@1 and R@5 for each search mode."""
    out: dict[str, Any] = {}
    for label, mode in MODES.items():
        r1, r5 = [], []
        for q in qs:
            hits = await searcher.search(
                q.text, top_k=5, mode=mode, per_document=1 if not paged else 5
            )
            flags = [is_hit(h, q, paged) for h in hits]
            r1.append(1.0 if flags[:1] == [True] else 0.0)
            r5.append(1.0 if any(flags[:5]) else 0.0)
        out[label] = {"R@1": mean(r1), "R@5": mean(r5)}
    return out
