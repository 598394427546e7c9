"""Web source benchmark: sync of a generated site served on 127.0.0.1 (sitemap, robots.txt).

Usage: .venv/bin/python -m bench.sources [--pages 1000] [--changed 0.05] [--removed 0.02]
A site of `--pages` pages (each a few sentences of its own, with navigation and a
footer) is synced into a fresh database through the real sync (fetch, trafilatura,
ingestion with the local embedder, collection `internal`), at 1,000 requests per
second (the local server needs no politeness). Then: a second sync with nothing
changed (every page a 304); `--changed` of the pages changed and `--removed` gone,
synced twice (the removed ones are kept after the first, removed after the
second). Prints a table and writes bench/results/sources.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from typing import Any

from sqlalchemy import select, text

from bench.common import connect, fresh_database, print_table, write_json
from bot.settings import Settings
from storage.embeddings import build_embedder
from storage.index import check_embedder
from storage.ingest_work import IngestWork
from storage.ingestion import IngestionService, IngestOptions
from storage.models import Source
from storage.sources.sync import SourceSyncer, SyncReport
from storage.sources.web import WebLimits
from tests.support.local_site import LocalSite

WORDS = [
    "permit",
    "licence",
    "office",
    "fee",
    "form",
    "renewal",
    "harbour",
    "park",
    "library",
    "school",
    "road",
    "tax",
    "waste",
    "water",
    "housing",
    "grant",
    "senior",
    "youth",
    "clinic",
    "bus",
    "parking",
    "noise",
    "tree",
    "event",
    "market",
]


def fact(n: int, version: int) -> str:
    """Page `n`'s text (a new `version` changes its numbers)."""
    rng = random.Random(n * 1000 + version)
    words = [rng.choice(WORDS) for _ in range(60)]
    return (
        f"Service {n} handles the {words[0]} {words[1]} requests of district {n % 37}."
        f" The fee is {100 + n + 7 * version} dollars and the answer comes within"
        f" {2 + n % 9 + version} working days. " + " ".join(words) + "."
    )


async def sync(syncer: SourceSyncer, db: Any, root: str, pages: int) -> SyncReport:
    """One sync of the site's source (stored on the first)."""
    async with db.transaction() as session:
        source = await session.scalar(select(Source).where(Source.name == "site"))
        if source is None:
            source = Source(
                name="site",
                kind="web",
                location=root + "/",
                collection="internal",
                every_s=86400,
                depth=2,
                max_pages=pages + 10,
            )
            session.add(source)
    return await syncer.sync(source)


async def count(db: Any, sql: str) -> int:
    async with db.sessions() as session:
        return int((await session.execute(text(sql))).scalar_one())


async def main(pages: int, changed_share: float, removed_share: float) -> None:
    site = LocalSite()
    for n in range(pages):
        site.page(f"/p/{n:05d}.html", f"Service {n}", fact(n, 0))
    root = site.start()
    url, _ = fresh_database("bench_sources")
    db = connect(url)
    cfg = Settings()
    embedder = build_embedder(None, None, None, None)
    options = IngestOptions(batch_size=cfg.embedding_batch_size)
    work = IngestWork(embedder, cfg.ingest_processes, cfg.ingest_nice, options.batch_size)
    await check_embedder(db, embedder)
    await work.embed(["warm up"])  # the model's one-time load is not the sync's
    ingestion = IngestionService(db, embedder, options, work)
    syncer = SourceSyncer(db, ingestion, WebLimits(requests_per_second=1000))
    rows: list[list[Any]] = []
    runs: list[dict[str, Any]] = []

    async def step(label: str) -> SyncReport:
        site.clear_log()
        started = time.perf_counter()
        report = await sync(syncer, db, root, pages)
        seconds = time.perf_counter() - started
        statuses = site.statuses("/p/")
        documents = await count(db, "SELECT count(*) FROM documents")
        run = {
            "step": label,
            "seconds": round(seconds, 2),
            "pages_per_s": round(pages / seconds, 1),
            "added": len(report.added),
            "changed": len(report.changed),
            "removed": len(report.removed),
            "missing": len(report.missing),
            "unchanged": report.unchanged,
            "failed": len(report.failed),
            "responses_200": statuses.get(200, 0),
            "responses_304": statuses.get(304, 0),
            "documents": documents,
        }
        runs.append(run)
        rows.append(list(run.values()))
        return report

    try:
        first = await step("first sync")
        again = await step("nothing changed")
        changed = random.Random(7).sample(
            range(pages), int(pages * (changed_share + removed_share))
        )
        edit, drop = (
            changed[: int(pages * changed_share)],
            changed[int(pages * changed_share) :],
        )
        for n in edit:
            site.page(f"/p/{n:05d}.html", f"Service {n}", fact(n, 1))
        for n in drop:
            site.drop(f"/p/{n:05d}.html")
        once = await step(f"{len(edit)} changed, {len(drop)} gone (1st)")
        twice = await step("gone pages, 2nd miss")
    finally:
        site.stop()
        await work.close()
        await db.dispose()
    headers = list(runs[0])
    print_table(headers, rows)
    expected_changed = {f"{root}/p/{n:05d}.html" for n in edit}
    expected_removed = {f"{root}/p/{n:05d}.html" for n in drop}
    checks = {
        "first_all_added": len(first.added) == pages,
        "unchanged_share_of_first": round(runs[1]["seconds"] / runs[0]["seconds"], 3),
        "nothing_changed_all_304": runs[1]["responses_304"] == pages and not again.changed,
        "exactly_the_changed_reingested": set(once.changed) == expected_changed and not once.added,
        "removed_kept_after_one_miss": set(once.missing) == expected_removed and not once.removed,
        "removed_after_second_miss": set(twice.removed) == expected_removed,
        "documents_at_end": runs[-1]["documents"] == pages - len(drop),
    }
    for name, value in checks.items():
        print(f"{name}: {value}")
    path = write_json("sources", {"pages": pages, "runs": runs, "checks": checks})
    print(f"wrote {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--changed", type=float, default=0.05)
    parser.add_argument("--removed", type=float, default=0.02)
    args = parser.parse_args()
    asyncio.run(main(args.pages, args.changed, args.removed))
