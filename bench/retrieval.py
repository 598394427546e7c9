"""Retrieval benchmark: hybrid vs keyword-only, vector-only and in-memory BM25.

Usage: .venv/bin/python -m bench.retrieval [--limit N] [--filler 100000]
Prints Markdown tables and writes bench/results/retrieval.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

from rank_bm25 import BM25Okapi
from sqlalchemy import text

from bench.common import (
    CORPORA,
    Question,
    admin_url,
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
from bench.searching import CUTS, HYBRID, METHODS, ingest_corpus, searchers, vacuum
from bot.settings import Settings
from storage import db as dbmod
from storage.db import Database
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


async def run_queries(
    methods: dict[str, tuple[HybridSearcher, str]], questions: list[Question]
) -> tuple[dict[str, list[list[str]]], dict[str, list[float]], list[dict[str, Any]]]:
    ranked: dict[str, list[list[str]]] = {m: [] for m in methods}
    latency: dict[str, list[float]] = {m: [] for m in methods}
    scores: list[dict[str, Any]] = []
    for q in questions:
        for name, (searcher, mode) in methods.items():
            t0 = time.perf_counter()
            hits = await searcher.search(q.text, top_k=15, mode=mode)
            latency[name].append((time.perf_counter() - t0) * 1000)
            ranked[name].append(doc_ranking([h.document for h in hits]))
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


async def add_filler(db: Database, target: int) -> int:
    """Grow the chunk table to `target` rows with synthetic chunks.

    Each filler chunk mixes two real chunks: concatenated keyword vectors and the
    normalised sum of their embeddings, so term and vector distributions stay
    realistic. Statistics are recomputed; the HNSW index is rebuilt afterwards.
    """
    async with db.transaction() as s:
        have = int((await s.execute(text("SELECT count(*) FROM chunks"))).scalar_one())
        need = target - have
        if need <= 0:
            return have
        await s.execute(text("SET LOCAL maintenance_work_mem = '1GB'"))
        await s.execute(text("SET LOCAL work_mem = '256MB'"))
        # Bulk load without per-row foreign-key triggers (the rows are built consistent).
        await s.execute(text("SET LOCAL session_replication_role = replica"))
        await s.execute(text("DROP INDEX ix_chunks_embedding"))
        # Bulk load first, index after: far faster than maintaining indexes per row.
        await s.execute(text("DROP INDEX ux_chunk_terms_postings, ix_chunk_terms_chunk"))
        doc = (
            await s.execute(
                text(
                    "INSERT INTO documents (title, format, content_hash, size_bytes, chunk_count)"
                    " VALUES ('filler', 'txt', 'filler', 0, :n) RETURNING id"
                ),
                {"n": need},
            )
        ).scalar_one()
        # Source rows by dense number, so each filler row picks two at random cheaply.
        await s.execute(
            text(
                "CREATE TEMP TABLE src ON COMMIT DROP AS SELECT row_number() OVER (ORDER BY id)"
                " AS rn, id, text, token_count, keywords, embedding FROM chunks"
            )
        )
        await s.execute(text("ALTER TABLE src ADD PRIMARY KEY (rn)"))
        await s.execute(text("ANALYZE src"))
        await s.execute(
            text(
                "CREATE TEMP TABLE pairs ON COMMIT DROP AS SELECT g AS position,"
                " 1 + (g * 7919) % :have AS a, 1 + (g * 104729 + 13) % :have AS b"
                " FROM generate_series(1::bigint, :need) g"
            ),
            {"need": need, "have": have},
        )
        await s.execute(text("ANALYZE pairs"))
        await s.execute(
            text(
                "INSERT INTO chunks"
                " (document_id, position, text, token_count, keywords, embedding)"
                " SELECT :doc, p.position, a.text || ' ' || b.text,"
                " a.token_count + b.token_count, a.keywords || b.keywords,"
                " l2_normalize(a.embedding + b.embedding)"
                " FROM pairs p JOIN src a ON a.rn = p.a JOIN src b ON b.rn = p.b"
            ),
            {"doc": doc},
        )
        # Postings of each filler chunk: the two sources' term counts added up.
        # Temp tables are analysed so the planner picks hash joins.
        await s.execute(
            text(
                "CREATE TEMP TABLE src_terms ON COMMIT DROP AS SELECT s.rn, t.term, t.tf"
                " FROM src s JOIN chunk_terms t ON t.chunk_id = s.id"
            )
        )
        await s.execute(
            text(
                "CREATE TEMP TABLE filler_map ON COMMIT DROP AS SELECT c.id, c.token_count,"
                " p.a, p.b FROM chunks c JOIN pairs p ON p.position = c.position"
                " WHERE c.document_id = :doc"
            ),
            {"doc": doc},
        )
        await s.execute(text("ANALYZE src_terms"))
        await s.execute(text("ANALYZE filler_map"))
        await s.execute(
            text(
                "INSERT INTO chunk_terms (term, chunk_id, tf, dl)"
                " SELECT x.term, x.id, sum(x.tf), max(x.token_count) FROM ("
                " SELECT m.id, m.token_count, t.term, t.tf FROM filler_map m"
                " JOIN src_terms t ON t.rn = m.a UNION ALL"
                " SELECT m.id, m.token_count, t.term, t.tf FROM filler_map m"
                " JOIN src_terms t ON t.rn = m.b) x GROUP BY x.term, x.id"
            )
        )
        await s.execute(
            text(
                "CREATE UNIQUE INDEX ux_chunk_terms_postings ON chunk_terms (term, chunk_id)"
                " INCLUDE (tf, dl)"
            )
        )
        await s.execute(text("CREATE INDEX ix_chunk_terms_chunk ON chunk_terms (chunk_id, term)"))
        await s.execute(text("TRUNCATE keyword_terms"))
        await s.execute(
            text("INSERT INTO keyword_terms SELECT term, count(*) FROM chunk_terms GROUP BY term")
        )
        await s.execute(
            text(
                "UPDATE index_meta SET chunk_count = (SELECT count(*) FROM chunks),"
                " token_total = (SELECT sum(token_count) FROM chunks)"
            )
        )
        await s.execute(
            text(
                "CREATE INDEX ix_chunks_embedding ON chunks"
                " USING hnsw (embedding vector_cosine_ops)"
            )
        )
    await vacuum(db)
    async with db.transaction() as s:
        return int((await s.execute(text("SELECT count(*) FROM chunks"))).scalar_one())


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


async def faq_recall(settings: Settings, limit: int) -> dict[str, Any]:
    """Every FAQ set (bench.faq): R@1, R@5, MRR@5 of the gold entry per method."""
    rows: list[list[Any]] = []
    out: dict[str, Any] = {}
    for n, (name, entries) in enumerate(faq_sets().items()):
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
    parser.add_argument("--filler", type=int, default=100_000, help="chunks for the latency run")
    parser.add_argument("--latency-questions", type=int, default=300)
    parser.add_argument("--corpora", nargs="*", default=list(CORPORA), help="names to run")
    parser.add_argument("--faq", type=int, default=400, help="paraphrases per FAQ set (0: none)")
    args = parser.parse_args()
    settings = Settings()
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
        ranked, latency, scores = await run_queries(methods, questions)
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
            ranked, _, _ = await run_queries(methods, asked)
            crossed = {mode: metrics(r, golds) for mode, r in ranked.items()}
            results["corpora"][name]["cross_lingual"] = crossed
            quality_rows += [
                [label, mode, m["R@1"], m["R@5"], m["R@10"], m["MRR@10"], "", ""]
                for mode, m in crossed.items()
            ]
        await db.dispose()
        print(f"done {name}", flush=True)

    if args.faq:
        results["faq"] = await faq_recall(settings, args.faq)
    print("\n## Retrieval quality (gold passage) and search latency\n")
    results["quality_table"] = print_table(
        ["corpus", "method", "R@1", "R@5", "R@10", "MRR@10", "p50 ms", "p95 ms"], quality_rows
    )
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
        if not drcd_url:  # --corpora without drcd: reuse the DRCD database of a previous run
            drcd_url = dbmod.with_database(admin_url(), "bench_drcd")
        db = connect(drcd_url)
        total = await add_filler(db, args.filler)
        methods = searchers(db, settings)
        passages, questions = load_squad(CORPORA["drcd (zh-hant)"])
        sample = rng.sample(questions, min(args.latency_questions, len(questions)))
        await methods[HYBRID][0].search("warm up", top_k=1)
        ranked, latency, _ = await run_queries(methods, sample)
        rows = []
        for mode in METHODS:
            m = metrics(ranked[mode], [q.passage for q in sample])
            rows.append(
                [
                    f"drcd + filler ({total} chunks)",
                    mode,
                    m["R@5"],
                    pct(latency[mode], 50),
                    pct(latency[mode], 95),
                ]
            )
        # What a bot turn asks for: the default top_k (5) instead of 15.
        searcher = methods[HYBRID][0]
        default_latency = []
        for q in sample:
            t0 = time.perf_counter()
            await searcher.search(q.text, top_k=settings.search_top_k)
            default_latency.append((time.perf_counter() - t0) * 1000)
        rows.append(
            [
                f"drcd + filler ({total} chunks)",
                f"hybrid, top_k={settings.search_top_k} (what a turn asks)",
                "",
                pct(default_latency, 50),
                pct(default_latency, 95),
            ]
        )
        print("\n## Search latency at scale\n")
        results["scale_table"] = print_table(["corpus", "method", "R@5", "p50 ms", "p95 ms"], rows)
        results["scale"] = {"chunks": total, "rows": rows}
        await db.dispose()
    name = "retrieval" if quality_rows or args.faq else "retrieval_scale"
    print(f"\nwrote {write_json(name, results)}")


if __name__ == "__main__":
    asyncio.run(main())
