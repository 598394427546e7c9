"""Gap topics benchmark: do refused questions group by what they ask, in any language?

Usage: .venv/bin/python -m bench.gaps [--entries 125] [--pairs 150]
`ragbot gaps` clusters questions with the embedder (bot/core/admin/gaps.py, greedy,
cosine to a topic's mean ≥ GAP_SIMILARITY). Two sets stand for refused
questions whose true topic is known:
- StackFAQ (shared/eval/stackfaq): each entry's question and its users'
  rephrasings are one topic (English);
- XQuAD (shared/eval/xquad): each question in English and in Chinese is one
  topic (the same thing asked in two languages; other questions about the same
  passage are other topics).
Scored by pairwise precision and recall (pairs put together that belong
together), F1, the adjusted Rand index and topics found vs true; compared in
the same run with the shipped threshold's neighbours and with a lexical
baseline (keyword-overlap grouping). Writes bench/results/gaps.json.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from math import comb
from typing import Any

from bench.common import EVAL_DIR, print_table, write_json
from bench.faq import load_entries
from bot.core.admin.gaps import GAP_SIMILARITY, cluster
from storage.embeddings import LocalUSEEmbeddings
from textkit.tokens import keyword_tokens


def stackfaq(entries: int) -> tuple[list[str], list[int]]:
    texts, labels = [], []
    for i, e in enumerate(load_entries()[:entries]):
        for q in (e.question, *e.rephrased):
            texts.append(q)
            labels.append(i)
    return texts, labels


def xquad(pairs: int, seed: int = 7) -> tuple[list[str], list[int]]:
    def load(language: str) -> dict[str, str]:
        data = json.loads((EVAL_DIR / "xquad" / f"xquad.{language}.json").read_text("utf-8"))
        return {
            qa["id"]: qa["question"]
            for article in data["data"]
            for para in article["paragraphs"]
            for qa in para["qas"]
        }

    en, zh = load("en"), load("zh")
    ids = sorted(set(en) & set(zh))
    random.Random(seed).shuffle(ids)
    texts, labels = [], []
    for i, qid in enumerate(ids[:pairs]):
        texts += [en[qid], zh[qid]]
        labels += [i, i]
    return texts, labels


def lexical(texts: list[str], threshold: float = 0.3) -> list[int]:
    """Baseline: greedy grouping by keyword overlap (Jaccard with a topic's first question)."""
    heads: list[set[str]] = []
    out = []
    for t in texts:
        words = set(keyword_tokens(t))
        best, best_j = -1, threshold
        for i, head in enumerate(heads):
            j = len(words & head) / max(1, len(words | head))
            if j >= best_j:
                best, best_j = i, j
        if best < 0:
            heads.append(words)
            best = len(heads) - 1
        out.append(best)
    return out


def scores(truth: list[int], found: list[int]) -> dict[str, Any]:
    n = len(truth)
    same_true = same_found = both = 0
    for i in range(n):
        for j in range(i + 1, n):
            t, f = truth[i] == truth[j], found[i] == found[j]
            same_true += t
            same_found += f
            both += t and f
    precision = both / same_found if same_found else 1.0
    recall = both / same_true if same_true else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    # adjusted Rand index from the contingency table
    table = Counter(zip(truth, found, strict=True))
    index = sum(comb(v, 2) for v in table.values())
    a = sum(comb(v, 2) for v in Counter(truth).values())
    b = sum(comb(v, 2) for v in Counter(found).values())
    expected = a * b / comb(n, 2)
    ari = (index - expected) / ((a + b) / 2 - expected) if (a + b) / 2 != expected else 1.0
    return {
        "precision": round(precision, 3),
        "recall": round(recall, 3),
        "f1": round(f1, 3),
        "ari": round(ari, 3),
        "topics": len(set(found)),
        "true_topics": len(set(truth)),
    }


def main(args: argparse.Namespace) -> None:
    model = LocalUSEEmbeddings()
    sets = {
        "stackfaq (en paraphrases)": stackfaq(args.entries),
        "xquad (en + zh, one question)": xquad(args.pairs),
    }
    rows: list[list[Any]] = []
    results: dict[str, dict[str, Any]] = {}
    for name, (texts, labels) in sets.items():
        order = list(range(len(texts)))
        random.Random(3).shuffle(order)  # questions arrive mixed, not topic by topic
        texts = [texts[i] for i in order]
        labels = [labels[i] for i in order]
        vectors = model.embed_documents(texts)
        methods = {
            f"embedder, cosine ≥ {GAP_SIMILARITY}, refined (shipped)": cluster(vectors),
            f"embedder, cosine ≥ {GAP_SIMILARITY}, greedy only": cluster(vectors, refine=False),
            "embedder, cosine ≥ 0.5, greedy only (first version)": cluster(
                vectors, 0.5, refine=False
            ),
            "embedder, cosine ≥ 0.6, refined": cluster(vectors, 0.6),
            "embedder, cosine ≥ 0.7, refined": cluster(vectors, 0.7),
        }
        methods["keywords, Jaccard ≥ 0.3 (baseline)"] = lexical(texts)
        results[name] = {"questions": len(texts)}
        for method, found in methods.items():
            s = scores(labels, found)
            results[name][method] = s
            rows.append(
                [
                    name,
                    len(texts),
                    method,
                    s["precision"],
                    s["recall"],
                    s["f1"],
                    s["ari"],
                    f"{s['topics']} / {s['true_topics']}",
                ]
            )
    table = print_table(
        [
            "set",
            "questions",
            "grouping",
            "pair precision",
            "pair recall",
            "F1",
            "ARI",
            "topics found / true",
        ],
        rows,
    )
    print(f"wrote {write_json('gaps', {'table': table, **results})}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=125)
    parser.add_argument("--pairs", type=int, default=150)
    main(parser.parse_args())
