"""Retrieval benchmark: hybrid vs keyword-only, vector-only and in-memory BM25.

Usage: .venv/bin/python -m bench.retrieval [--limit N] [--filler 100000 1000000] [--reuse-filler]
       [--rerank-url URL --rerank-model M]
Prints Markdown tables and writes bench/results/retrieval.json.

With `--rerank-url` (the root of a `/rerank` endpoint, as RERANK_BASE_URL;
RERANK_API_KEY and RERANK_TIMEOUT_SECONDS from the settings) each hybrid
search's hits are also reranked (graph.rerank, as a turn does) and scored as
one more method beside the hybrid's, on the same questions in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections import Counter
from typing import Any

from rank_bm25 import BM25Okapi

from bench.common import (
    CORPORA,
    Question,
    connect,
    fresh_database,
    load_squad,
    mean,
    pct,
    print_table,
    write_json,
)
from bench.faq import corpus as faq_corpus
from bench.faq import faq_sets, recall
from bench.faq import questions as faq_questions
from bench.scale import HEADERS, scale_runs, variant
from bench.searching import CUTS, HYBRID, ingest_corpus, searchers
from bot.settings import Settings, reveal
from graph.rerank import RERANK_CANDIDATES, Reranker, rerank_hits
from storage.ingestion import index_text
from storage.search import HybridSearcher
from textkit.tokens import keyword_tokens


def doc_ranking(titles: list[str]) -> list[str]:
    """Chunk-level hits → distinct documents, best first."""
    seen: dict[str, None] = {}
    for t in titles:
        seen.setdefault(t, None)
    return list(seen)


def metrics(rankings: list[list[str]], golds: list[str]) -> dict[str, float]:
    """Recall@1/5/10 and MRR@10 of the gold passage."""
    out: dict[str, float] = {}
    for k in CUTS:
        out[f"R@{k}"] = mean(
            [1.0 if g in r[:k] else 0.0 for r, g in zip(rankings, golds, strict=True)]
        )
    out["MRR@10"] = mean(
        [
            1.0 / (r[:10].index(g) + 1) if g in r[:10] else 0.0
            for r, g in zip(rankings, golds, strict=True)
        ]
    )
    return out


def reranked_name(reranker: Reranker) -> str:
    """The method's name in the tables: the hybrid's hits reordered by this reranker."""
    return f"hybrid + reranker ({reranker.model or reranker.url})"


async def run_queries(
    methods: dict[str, tuple[HybridSearcher, str]],
    questions: list[Question],
    reranker: Reranker | None = None,
    decisions: Counter[str] | None = None,
) -> tuple[dict[str, list[list[str]]], dict[str, list[float]], list[dict[str, Any]]]:
    """Each method's document ranking and latency per question; with `reranker`, one
    more method: the hybrid's hits reranked (its decisions counted in `decisions`)."""
    ranked: dict[str, list[list[str]]] = {m: [] for m in methods}
    latency: dict[str, list[float]] = {m: [] for m in methods}
    if reranker is not None:
        ranked[reranked_name(reranker)], latency[reranked_name(reranker)] = [], []
    # the reranker's pool, as a turn gives it (the metrics read the first 10 documents,
    # which a longer list leaves as they were)
    top_k = max(15, RERANK_CANDIDATES) if reranker is not None else 15
    scores: list[dict[str, Any]] = []
    for q in questions:
        for name, (searcher, mode) in methods.items():
            t0 = time.perf_counter()
            hits = await searcher.search(q.text, top_k=top_k, mode=mode)
            latency[name].append((time.perf_counter() - t0) * 1000)
            ranked[name].append(doc_ranking([h.document for h in hits]))
            if name == HYBRID and reranker is not None:
                reordered, note = await rerank_hits(reranker, q.text, hits)
                # the search's time and the reranker's: what a turn waits
                latency[reranked_name(reranker)].append((time.perf_counter() - t0) * 1000)
                ranked[reranked_name(reranker)].append(doc_ranking([h.document for h in reordered]))
                if decisions is not None:
                    decisions[note] += 1
            if name == HYBRID and hits:
                gold = next((h for h in hits if h.document == q.passage), None)
                scores.append(
                    {
                        "top": hits[0].score,
                        "top_is_gold": hits[0].document == q.passage,
                        "gold": gold.score if gold else None,
                    }
                )
    return ranked, latency, scores


def bm25_baseline(
    passages: dict[str, str], questions: list[Question]
) -> tuple[list[list[str]], list[float]]:
    ids = list(passages)
    # the same indexed text as the hybrid side gets: title and passage
    bm25 = BM25Okapi([keyword_tokens(index_text(i, None, passages[i])) for i in ids])
    ranked, latency = [], []
    for q in questions:
        t0 = time.perf_counter()
        scores = bm25.get_scores(keyword_tokens(q.text))
        top = sorted(range(len(ids)), key=lambda i: -scores[i])[:10]
        latency.append((time.perf_counter() - t0) * 1000)
        ranked.append([ids[i] for i in top])
    return ranked, latency


BEFORE = "hybrid (adaptive fusion, default), at revision 0012"
# a corpus → the parallel set whose questions (same ids, other language) it is asked too
CROSS_LINGUAL = {"xquad.zh (zh-hans)": "xquad.en (en)", "xquad.en (en)": "xquad.zh (zh-hans)"}


def cross_lingual(name: str, questions: list[Question]) -> tuple[str, list[Question]]:
    """The same questions in the other language (XQuAD is a parallel translation)."""
    other = CROSS_LINGUAL[name]
    _, theirs = load_squad(CORPORA[other])
    by_id = {q.id: q for q in theirs}
    asked = [
        Question(q.id, by_id[q.id].text, q.passage, q.answers) for q in questions if q.id in by_id
    ]
    return f"{name} passages ← {other.split()[1].strip('()')} questions", asked


async def faq_recall(
    settings: Settings, limit: int, names: list[str] | None = None
) -> dict[str, Any]:
    """Every FAQ set (bench.faq; `names`: those whose name or first word is listed):
    R@1, R@5, MRR@5 of the gold entry per method."""
    rows: list[list[Any]] = []
    out: dict[str, Any] = {}
    for n, (name, entries) in enumerate(faq_sets().items()):
        if names is not None and name not in names and name.split()[0] not in names:
            continue
        docs, where = faq_corpus(entries)
        url, _server = await asyncio.to_thread(fresh_database, f"bench_faq_{n}")
        db = connect(url)
        await ingest_corpus(db, docs, settings)
        qs = faq_questions(entries, where, limit, seed=3)
        found = await recall(searchers(db, settings), qs)
        out[name] = found
        rows += [[name, m, len(qs), v["R@1"], v["R@5"], v["MRR@5"]] for m, v in found.items()]
        await db.dispose()
        print(f"done {name}", flush=True)
    out["rows"] = rows
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=0, help="questions per corpus (0: all)")
    parser.add_argument(
        "--filler",
        type=int,
        nargs="*",
        default=[100_000, 1_000_000],
        help="chunk counts of the latency runs (none: no latency run)",
    )
    parser.add_argument(
        "--reuse-filler",
        action="store_true",
        help="keep scale databases already built by an earlier run (default: build anew)",
    )
    parser.add_argument(
        "--before-questions", type=int, default=100, help="questions asked of the old code"
    )
    parser.add_argument("--latency-questions", type=int, default=300)
    parser.add_argument("--corpora", nargs="*", default=list(CORPORA), help="names to run")
    parser.add_argument("--faq", type=int, default=400, help="paraphrases per FAQ set (0: none)")
    parser.add_argument(
        "--faq-sets", nargs="*", default=None, help="FAQ sets to run (name or first word)"
    )
    parser.add_argument(
        "--rerank-url",
        default=None,
        help="root of a /rerank endpoint (as RERANK_BASE_URL): the hybrid reranked too",
    )
    parser.add_argument("--rerank-model", default=None, help="the reranker's model name")
    args = parser.parse_args()
    settings = Settings()
    reranker = (
        Reranker(
            args.rerank_url,
            args.rerank_model,
            reveal(settings.rerank_api_key),
            settings.rerank_timeout_s,
        )
        if args.rerank_url
        else None
    )
    decisions: Counter[str] = Counter()
    rng = random.Random(7)
    results: dict[str, Any] = {"corpora": {}}
    quality_rows: list[list[Any]] = []
    ingest_rows: list[list[Any]] = []
    drcd_url = ""
    for name, path in CORPORA.items():
        if name not in args.corpora and name.split()[0] not in args.corpora:
            continue
        passages, questions = load_squad(path)
        if args.limit:
            questions = rng.sample(questions, min(args.limit, len(questions)))
        slug = "bench_" + name.split()[0].replace(".", "_")
        url, _server = await asyncio.to_thread(fresh_database, slug)
        drcd_url = drcd_url or url
        db = connect(url)
        ingest = await ingest_corpus(db, passages, settings)
        methods = searchers(db, settings)
        await methods[HYBRID][0].search("warm up", top_k=1)
        golds = [q.passage for q in questions]
        ranked, latency, scores = await run_queries(methods, questions, reranker, decisions)
        ranked["bm25 (rank_bm25, memory)"], latency["bm25 (rank_bm25, memory)"] = bm25_baseline(
            passages, questions
        )
        per_mode = {}
        for mode, r in ranked.items():
            m = metrics(r, golds)
            per_mode[mode] = {
                **m,
                "p50_ms": pct(latency[mode], 50),
                "p95_ms": pct(latency[mode], 95),
            }
            quality_rows.append(
                [
                    name,
                    mode,
                    m["R@1"],
                    m["R@5"],
                    m["R@10"],
                    m["MRR@10"],
                    per_mode[mode]["p50_ms"],
                    per_mode[mode]["p95_ms"],
                ]
            )
        # the default search as it was at revision 0012, on the same index and questions
        with variant(url, "before"):
            before, before_latency, _ = await run_queries({HYBRID: methods[HYBRID]}, questions)
        m = metrics(before[HYBRID], golds)
        per_mode[BEFORE] = {
            **m,
            "p50_ms": pct(before_latency[HYBRID], 50),
            "p95_ms": pct(before_latency[HYBRID], 95),
        }
        b = per_mode[BEFORE]
        quality_rows.append(
            [name, BEFORE, m["R@1"], m["R@5"], m["R@10"], m["MRR@10"], b["p50_ms"], b["p95_ms"]]
        )
        ingest_rows.append(
            [
                name,
                len(passages),
                len(questions),
                int(ingest["chunks"]),
                ingest["ingest_s"],
                ingest["chunks_per_s"],
            ]
        )
        results["corpora"][name] = {
            "passages": len(passages),
            "questions": len(questions),
            "ingest": ingest,
            "modes": per_mode,
            "scores": scores,
        }
        if name in CROSS_LINGUAL:
            label, asked = cross_lingual(name, questions)
            ranked, _, _ = await run_queries(methods, asked, reranker, decisions)
            crossed = {mode: metrics(r, golds) for mode, r in ranked.items()}
            results["corpora"][name]["cross_lingual"] = crossed
            quality_rows += [
                [label, mode, m["R@1"], m["R@5"], m["R@10"], m["MRR@10"], "", ""]
                for mode, m in crossed.items()
            ]
        await db.dispose()
        print(f"done {name}", flush=True)

    if args.faq:
        results["faq"] = await faq_recall(settings, args.faq, args.faq_sets)
    print("\n## Retrieval quality (gold passage) and search latency\n")
    results["quality_table"] = print_table(
        ["corpus", "method", "R@1", "R@5", "R@10", "MRR@10", "p50 ms", "p95 ms"], quality_rows
    )
    if reranker is not None:
        # a search the reranker skipped keeps the fusion's order: say how many were
        results["rerank"] = {"url": reranker.url, "model": reranker.model, **decisions}
        print(
            f"\nreranker at {reranker.url}: " + ", ".join(f"{n} {d}" for d, n in decisions.items())
        )
        await reranker.aclose()
    if args.faq:
        print("\n## FAQ paraphrases: gold entry in the top 5\n")
        results["faq_table"] = print_table(
            ["FAQ set", "method", "questions", "R@1", "R@5", "MRR@5"], results["faq"]["rows"]
        )
    print("\n## Ingestion\n")
    results["ingest_table"] = print_table(
        ["corpus", "passages", "questions", "chunks", "seconds", "chunks/s"], ingest_rows
    )

    if args.filler:
        # the DRCD database of this run (or of a previous one, --corpora without drcd)
        # is the template every size is copied from
        passages, questions = load_squad(CORPORA["drcd (zh-hant)"])
        sample = rng.sample(questions, min(args.latency_questions, len(questions)))
        scale = await scale_runs(
            args.filler, settings, sample, args.before_questions, args.reuse_filler
        )
        print(
            f"\n## Search latency at scale ({len(sample)} DRCD questions after,"
            f" the first {min(args.before_questions, len(sample))} before)\n"
        )
        results["scale_table"] = print_table(HEADERS, scale["rows"])
        results["scale"] = scale
    name = "retrieval" if quality_rows or args.faq else "retrieval_scale"
    print(f"\nwrote {write_json(name, results)}")


if __name__ == "__main__":
    asyncio.run(main())
