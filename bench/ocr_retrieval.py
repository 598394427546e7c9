"""Retrieval and answers over an OCR'd corpus, and questions asked as photos.

    python -m bench.ocr_retrieval [--passages 6] [--distractors 100] [--photos 10]
                                  [--scripts zh-hant zh-hans en] [--seed 5]

Per script (bench.ocr_quality's sets and renderer; Noto Sans CJK from Debian's
`fonts-noto-cjk` needed): `--passages` dev passages are sampled and ingested
into two fresh databases beside the same `--distractors` other passages (as
text in both): once as text (the baseline) and once printed to a PNG page
through `IngestionService.ingest_bytes` (the real path: the sandboxed parser
process, `storage.scans.ocr_image`). Every question whose gold passage was
sampled is then asked of each: the gold passage's Recall@5 and MRR@10 from
the default hybrid search (bench.retrieval's `run_queries` and `metrics`) and
citation hit from the whole graph in no-LLM mode (bench.answers' `run_set`).

Photo questions: `--photos` of those questions are printed and photographed
(bench.ocr_quality's plain phone photo: turned up to 1.5°, slightly soft, JPEG
60), read through `MediaReader` (the photo-question path: the sandboxed OCR,
then `question_text`) and answered from the text corpus; the baseline is the
same questions typed, in the same run. Writes bench/results/ocr_retrieval.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

from bench.answers import run_set, service_for
from bench.common import (
    CORPORA,
    Question,
    connect,
    fresh_database,
    load_squad,
    mean,
    print_table,
    write_json,
)
from bench.ocr_quality import SCRIPTS, error_rate, photo, render, require_font
from bench.retrieval import metrics, run_queries
from bench.searching import HYBRID, configured_embedder, searchers, vacuum
from bot.app.uploads import ingest_options, upload_policy
from bot.settings import Settings
from storage.db import Database
from storage.index import check_embedder
from storage.ingestion import IngestionService


def scan_png(text: str, script: str) -> bytes:
    """`text` printed on a page and scanned: a clean PNG, as a scanner gives."""
    import io

    out = io.BytesIO()
    render(text, script).save(out, "PNG")
    return out.getvalue()


async def build(
    name: str, texts: dict[str, str], scans: dict[str, bytes], settings: Settings
) -> tuple[Database, dict[str, Any]]:
    """A fresh database `name` holding `texts` as text files and `scans` as PNG pages."""
    url, _server = await asyncio.to_thread(fresh_database, name)
    db = connect(url)
    embedder = configured_embedder(settings)
    await check_embedder(db, embedder)
    service = IngestionService(db, embedder, ingest_options(settings, upload_policy(settings)))
    for pid, body in texts.items():
        await service.ingest_bytes("passage.txt", body.encode(), title=pid)
    started = time.perf_counter()
    failed: list[str] = []
    for pid, data in scans.items():
        result = await service.ingest_bytes("page.png", data, title=pid)
        if not result.chunks:
            failed.append(f"{pid}: {result.reason}")
    seconds = time.perf_counter() - started
    await vacuum(db)
    return db, {"scans": len(scans), "scan_ingest_s": seconds, "failed": failed}


async def judge(db: Database, settings: Settings, questions: list[Question]) -> dict[str, float]:
    """Recall@5 and MRR@10 of the hybrid search, citation hit of the no-LLM graph."""
    hybrid = {HYBRID: searchers(db, settings)[HYBRID]}
    ranked, _, _ = await run_queries(hybrid, questions)
    found = metrics(ranked[HYBRID], [q.passage for q in questions])
    turns = await run_set(service_for(db, settings), questions)
    return {
        "R@5": found["R@5"],
        "MRR@10": found["MRR@10"],
        "citation_hit": mean([1.0 if t["gold"] in t["cited"] else 0.0 for t in turns]),
    }


async def photographed(
    questions: list[Question], script: str, settings: Settings, rng: random.Random
) -> tuple[list[Question], list[dict[str, Any]]]:
    """Each question as the photo-question path reads it (MediaReader: the sandboxed
    OCR, then `question_text`); and per photo its error rate and time."""
    from bot.core.answering.media import MediaReader, question_text
    from bot.core.messages import Attachment

    reader = MediaReader(settings)
    read: list[Question] = []
    seen: list[dict[str, Any]] = []
    for q in questions:
        data = photo(q.text, script, rng)
        attachment = Attachment(name="photo.jpg", mime="image/jpeg", data=data, kind="photo")
        started = time.perf_counter()
        reading = await reader.read(attachment, "en")
        seconds = time.perf_counter() - started
        text = question_text("", reading.text or "")
        seen.append(
            {
                "question": q.text,
                "read": text,
                "notice": reading.reason if reading.text is None else "",
                "cer": error_rate(text, q.text, script),
                "seconds": seconds,
            }
        )
        # a photo read as nothing asks nothing: it counts as a miss below
        read.append(Question(q.id, text or "?", q.passage, q.answers))
    return read, seen


async def main() -> None:
    """Build both databases per script, ask, print the tables and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=6, help="passages printed per script")
    parser.add_argument("--distractors", type=int, default=100, help="text passages beside them")
    parser.add_argument("--photos", type=int, default=10, help="questions photographed")
    parser.add_argument("--scripts", nargs="*", default=list(SCRIPTS))
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    require_font()
    settings = Settings()
    rng = random.Random(args.seed)
    rows: list[list[Any]] = []
    photo_rows: list[list[Any]] = []
    results: dict[str, Any] = {"args": vars(args)}
    for script in args.scripts:
        passages, questions = load_squad(CORPORA[SCRIPTS[script]])
        asked = {q.passage for q in questions}
        ids = sorted(p for p in passages if p in asked)
        sample = rng.sample(ids, args.passages)
        rest = sorted(set(passages) - set(sample))
        distractors = {p: passages[p] for p in rng.sample(rest, args.distractors)}
        golds = [q for q in questions if q.passage in sample]
        slug = "ocr_" + script.replace("-", "_")
        texts = {**distractors, **{p: passages[p] for p in sample}}
        text_db, _ = await build(slug + "_text", texts, {}, settings)
        scans = {p: scan_png(passages[p], script) for p in sample}
        scan_db, ingest = await build(slug + "_scan", distractors, scans, settings)
        typed = await judge(text_db, settings, golds)
        ocrd = await judge(scan_db, settings, golds)
        label = f"{script} ({len(golds)} q)"
        rows.append(
            [label, "text (baseline)", typed["R@5"], typed["MRR@10"], typed["citation_hit"]]
        )
        rows.append([label, "OCR'd PNG pages", ocrd["R@5"], ocrd["MRR@10"], ocrd["citation_hit"]])
        shots = rng.sample(golds, min(args.photos, len(golds)))
        as_read, seen = await photographed(shots, script, settings, rng)
        on_paper = await run_set(service_for(text_db, settings), shots)
        from_photo = await run_set(service_for(text_db, settings), as_read)
        hit_typed = mean([1.0 if t["gold"] in t["cited"] else 0.0 for t in on_paper])
        hit_photo = mean(
            [
                1.0 if t["gold"] in t["cited"] and s["read"] else 0.0
                for t, s in zip(from_photo, seen, strict=True)
            ]
        )
        photo_rows.append(
            [
                script,
                len(shots),
                hit_typed,
                hit_photo,
                f"{mean([s['cer'] for s in seen]):.2%}",
                sum(1 for s in seen if not s["read"]),
                f"{mean([s['seconds'] for s in seen]):.1f}",
            ]
        )
        results[script] = {
            "sample": sample,
            "questions": len(golds),
            "text": typed,
            "ocr": ocrd,
            "ingest": ingest,
            "photos": seen,
        }
        for db in (text_db, scan_db):
            await db.dispose()
        print(f"done {script}: scans ingested in {ingest['scan_ingest_s']:.0f} s", flush=True)
    print(
        f"\n## Retrieval over an OCR'd corpus ({args.passages} printed passages per script"
        f" among {args.distractors} text passages)\n"
    )
    results["table"] = print_table(["script", "corpus", "R@5", "MRR@10", "citation hit"], rows)
    print("\n## Photo questions (answered from the text corpus; no LLM)\n")
    results["photo_table"] = print_table(
        [
            "script",
            "questions",
            "citation hit, typed",
            "citation hit, photo",
            "question CER",
            "read as nothing",
            "s/photo",
        ],
        photo_rows,
    )
    # a run of some scripts only (runs split to fit a time budget) keeps its own file
    name = "ocr_retrieval" + ("" if args.scripts == list(SCRIPTS) else "_" + "_".join(args.scripts))
    print(f"\nwrote {write_json(name.replace('-', '_'), results)}")


if __name__ == "__main__":
    asyncio.run(main())
