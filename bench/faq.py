"""FAQ sets for the retrieval and answer benchmarks: questions worded unlike their entry.

- StackFAQ (shared/eval/stackfaq): 125 English entries, users' paraphrases;
  one entry per file ("single") and ten per page ("paged", "Q: … / A: …" lines).
- XQuAD as an FAQ (shared/eval/xquad): each passage becomes an FAQ page whose
  entries are its questions, each answered by the passage sentence holding
  the gold answer; the paraphrase is the same question in the other
  language (English entries asked in Simplified Chinese, and the reverse).
- Sets written for this project (bench/data/faq_*.json, 2026-11-28), each
  page a topic of close siblings: citizen services with short colloquial
  questions, an IT helpdesk whose questions share no content word with their
  entry, an HR/workplace FAQ with questions of mixed length, and a
  Traditional-Chinese citizen FAQ asked colloquially. Each is measured in two
  halves over the same pages: the dev half asks the questions of every other
  entry of a page (the first, third, …), the held-out half those of the rest;
  fusions are tuned on dev halves only.

A hit is a result from the gold entry: its document, and on a page the chunk
whose text or heading holds the gold entry's question.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import EVAL_DIR, Question, mean
from storage.search import HybridSearcher
from textkit.sentences import split_sentences

PAGE_SIZE = 10
DATA_DIR = Path(__file__).resolve().parent / "data"
# name (its first word selects it in --corpora) → file in bench/data
OWN_SETS = {
    "citizen-faq (en, colloquial)": "faq_citizen.en.json",
    "helpdesk-faq (en, no shared words)": "faq_helpdesk.en.json",
    "workplace-faq (en, mixed length)": "faq_workplace.en.json",
    "citizen-faq-zh (zh-hant, colloquial)": "faq_citizen.zh-hant.json",
}
HALVES = ("dev", "held-out")


@dataclass(frozen=True)
class FaqEntry:
    """One FAQ entry, the page it is on, and the questions users ask for it."""

    key: str
    question: str
    answer: str
    rephrased: tuple[str, ...]
    page: str = ""  # entries with the same page share a document ("": one document each)
    # XQuAD articles of even index are the dev half graph.cross_language was tuned on
    half: str = ""  # "dev", "held-out" ("": not split)


def load_entries() -> list[FaqEntry]:
    """Every StackFAQ entry (rephrasings marked "*" skipped)."""
    data = json.loads((EVAL_DIR / "stackfaq" / "stackExchange-FAQ.json").read_text("utf-8"))
    out = []
    for i, e in enumerate(data["root"]["qapair"]):
        rephrased = tuple(r for r in e["rephr"] if r and r.strip() != "*")
        # an answer is a list of paragraphs, or (one entry) a plain string
        answer = e["answer"] if isinstance(e["answer"], str) else "\n".join(e["answer"])
        out.append(FaqEntry(str(i + 1), e["question"], answer, rephrased))
    return out


def paged(entries: list[FaqEntry], size: int = PAGE_SIZE) -> list[FaqEntry]:
    """The entries grouped into pages of `size`, as real FAQ pages hold them."""
    return [
        FaqEntry(e.key, e.question, e.answer, e.rephrased, f"FAQ page {i // size + 1}", e.half)
        for i, e in enumerate(entries)
    ]


def xquad_entries(entry_language: str, ask_language: str) -> list[FaqEntry]:
    """XQuAD questions in `entry_language` as FAQ entries, asked in `ask_language`.

    One page per passage; an entry's answer is the passage sentence holding
    the gold answer span.
    """

    def load(language: str) -> dict[str, Any]:
        path = EVAL_DIR / "xquad" / f"xquad.{language}.json"
        return json.loads(path.read_text("utf-8"))

    asked = {
        qa["id"]: qa["question"]
        for article in load(ask_language)["data"]
        for para in article["paragraphs"]
        for qa in para["qas"]
    }
    out = []
    for a, article in enumerate(load(entry_language)["data"]):
        half = "held-out" if a % 2 else "dev"
        for p, para in enumerate(article["paragraphs"]):
            sentences = split_sentences(para["context"])
            page = f"{article['title'].replace('_', ' ')} FAQ §{p + 1}"
            for qa in para["qas"]:
                span = qa["answers"][0]["text"]
                answer = next((s for s in sentences if span in s), span)
                if qa["id"] in asked:
                    out.append(
                        FaqEntry(qa["id"], qa["question"], answer, (asked[qa["id"]],), page, half)
                    )
    return out


def own_entries(file: str) -> list[FaqEntry]:
    """A set written for this project (bench/data), one page per topic."""
    data = json.loads((DATA_DIR / file).read_text("utf-8"))
    stem = file.split(".")[0]
    return [
        FaqEntry(f"{stem}-{i + 1}", e["q"], e["a"], tuple(e["asked"]), e["page"])
        for i, e in enumerate(data["entries"])
    ]


def half(entries: list[FaqEntry], which: str) -> list[FaqEntry]:
    """Every entry (pages keep all their siblings), but only the `which` half asked:
    "dev" the first, third, … entry of each page, "held-out" the others."""
    seen: dict[str, int] = {}
    out = []
    for e in entries:
        n = seen[e.page] = seen.get(e.page, -1) + 1
        asked = e.rephrased if (n % 2 == 0) == (which == "dev") else ()
        out.append(FaqEntry(e.key, e.question, e.answer, asked, e.page))
    return out


def entry_text(e: FaqEntry) -> str:
    """An entry as an FAQ page writes it."""
    return f"Q: {e.question}\nA: {e.answer}"


def corpus(entries: list[FaqEntry]) -> tuple[dict[str, str], dict[str, str]]:
    """Documents by title, and each entry's document."""
    pages: dict[str, list[FaqEntry]] = {}
    for e in entries:
        pages.setdefault(e.page or f"FAQ entry {e.key}", []).append(e)
    docs = {title: "\n\n".join(entry_text(e) for e in group) for title, group in pages.items()}
    where = {e.key: title for title, group in pages.items() for e in group}
    return docs, where


def questions(
    entries: list[FaqEntry], where: dict[str, str], limit: int, seed: int
) -> list[Question]:
    """A fixed sample of paraphrased questions; `passage` is the gold document title,
    `answers` holds the gold FAQ question (to recognise the entry on a page)."""
    qs = [
        Question(f"{e.key}-{i}", r, where[e.key], (e.question,))
        for e in entries
        if e.key in where
        for i, r in enumerate(e.rephrased)
    ]
    random.Random(seed).shuffle(qs)
    return qs[:limit]


def is_hit(hit: Any, q: Question) -> bool:
    """The result comes from the gold entry."""
    if hit.document != q.passage:
        return False
    return q.answers[0] in f"{hit.heading or ''}\n{hit.text}"


async def recall(
    methods: dict[str, tuple[HybridSearcher, str]], qs: list[Question]
) -> dict[str, dict[str, float]]:
    """R@1, R@5 and MRR@5 of the gold entry for each method (entries on a page compete)."""
    out: dict[str, dict[str, float]] = {}
    for label, (searcher, mode) in methods.items():
        r1, r5, rr = [], [], []
        for q in qs:
            hits = await searcher.search(q.text, top_k=5, mode=mode, per_document=5)
            flags = [is_hit(h, q) for h in hits][:5]
            first = flags.index(True) + 1 if True in flags else 0
            r1.append(1.0 if first == 1 else 0.0)
            r5.append(1.0 if first else 0.0)
            rr.append(1.0 / first if first else 0.0)
        out[label] = {"R@1": mean(r1), "R@5": mean(r5), "MRR@5": mean(rr)}
    return out


def faq_sets() -> dict[str, list[FaqEntry]]:
    """Every FAQ set the benchmarks measure, by name."""
    stack = load_entries()
    return {
        "stackfaq (en, 1 entry per file)": stack,
        "stackfaq (en, 10 entries per file)": paged(stack),
        "xquad-faq (en entries, zh-hans asks)": xquad_entries("en", "zh"),
        "xquad-faq (zh-hans entries, en asks)": xquad_entries("zh", "en"),
        **{
            f"{name.split()[0]} {which} {name.split(maxsplit=1)[1]}": half(own_entries(f), which)
            for name, f in OWN_SETS.items()
            for which in HALVES
        },
    }
