"""Corrections benchmark: who is told after documents change, and who should have been.

Usage: .venv/bin/python -m bench.corrections [--people 200] [--documents 20]
A fresh database holds `--documents` generated service pages (each a fee, a
processing time and a yes/no); `--people` Telegram askers each ask about one of
them (round robin) through the real turn service (no LLM: extractive answers),
stored as adapters store turns. Then every document changes: a third in substance
(the fee), a third reworded only (same facts), the rest removed. Each change defers
its corrections job in its transaction; the jobs are run here one after another by
the real `Corrections` (re-ask, compare, offer through the outbox).

"Should be told" comes from the construction: the askers whose stored answer cited
a document changed in substance or removed. "Told" is the outbox rows the jobs
queued. Prints a table and writes bench/results/corrections.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from typing import Any

from sqlalchemy import text

from bench.common import connect, fresh_database, print_table, write_json
from bot.app.case_renderers import asker_renderers
from bot.core.answering.corrections import Corrections
from bot.settings import Settings
from bot.turn.service import AnswerService
from graph.context import GraphContext
from storage.embeddings import build_embedder
from storage.forms import FormFinder
from storage.index import check_embedder
from storage.ingestion import IngestionService, IngestOptions
from storage.search import HybridSearcher

SERVICES = [
    "harbour mooring",
    "street vendor",
    "tree felling",
    "noise exemption",
    "market stall",
    "film location",
    "parking permit",
    "pet licence",
    "boat ramp",
    "community hall",
    "sports field",
    "library room",
    "bus shelter advert",
    "waste skip",
    "road closure",
    "water meter",
    "fire pit",
    "drone flight",
    "busking",
    "street party",
]
SUBSTANCE, REWORDED, REMOVED = "substance", "reworded", "removed"


def page(name: str, fee: int, days: int, online: bool, reworded: bool = False) -> str:
    """A service page: its fee, processing time and whether it can be applied for online."""
    can = "can" if online else "cannot"
    if reworded:
        return (
            f"# {name.title()} permit\n\nTo get a {name} permit you pay a fee of {fee:,} dollars;"
            f" processing takes {days} working days. You {can} apply online.\n"
        )
    return (
        f"# {name.title()} permit\n\nA {name} permit costs {fee:,} dollars and takes {days}"
        f" working days to process. You {can} apply online.\n"
    )


def kind_of(n: int, documents: int) -> str:
    """What happens to document `n`: a third changed in substance, a third reworded, the rest
    removed."""
    third = documents // 3 + 1
    return SUBSTANCE if n < third else REWORDED if n < 2 * third else REMOVED


async def main(people: int, documents: int) -> None:
    url, _ = fresh_database("bench_corrections")
    db = connect(url)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    embedder = build_embedder(None, None, None, None)
    await check_embedder(db, embedder)
    ingestion = IngestionService(db, embedder, IngestOptions())
    names = SERVICES[:documents]
    facts = {n: (100 * (n + 3), 2 + n % 5, n % 2 == 0) for n in range(documents)}
    for n, name in enumerate(names):
        await ingestion.ingest_bytes(f"{name}.md", page(name, *facts[n]).encode())
    context = GraphContext(
        searcher=HybridSearcher(db, embedder),
        forms=FormFinder(db),
        embedder=embedder.model,
        screen_embedder=embedder.model,
    )
    answers = AnswerService(db, context)
    corrections = Corrections(db, settings, lambda: answers, asker_renderers())
    started = time.perf_counter()
    asked_about: dict[int, int] = {}
    for person in range(1, people + 1):
        n = person % documents
        asked_about[person] = n
        await answers.ask(
            f"How much does a {names[n]} permit cost?",
            conversation=str(person),
            user=str(person),
            platform="telegram",
            collections=("public",),
        )
    ask_s = time.perf_counter() - started
    cited = await cited_titles(db)  # person → the titles their stored answer cited
    started = time.perf_counter()
    for n, name in enumerate(names):
        fee, days, online = facts[n]
        kind = kind_of(n, documents)
        if kind == REMOVED:
            await ingestion.delete(name)
        else:
            body = page(
                name, fee + 50 if kind == SUBSTANCE else fee, days, online, kind == REWORDED
            )
            await ingestion.ingest_bytes(f"{name}.md", body.encode())
    for args in await deferred(db):
        await corrections.run(args)
    correct_s = time.perf_counter() - started
    told = await told_people(db)
    kinds = {name: kind_of(n, documents) for n, name in enumerate(names)}
    should = {p for p, titles in cited.items() if any(kinds[t] != REWORDED for t in titles)}
    reworded_only = {
        p for p, titles in cited.items() if titles and all(kinds[t] == REWORDED for t in titles)
    }
    by_construction = {p for p, n in asked_about.items() if kinds[names[n]] != REWORDED}
    statuses = await status_counts(db)
    rows: list[list[Any]] = []
    for kind in (SUBSTANCE, REWORDED, REMOVED):
        group = {p for p, titles in cited.items() if any(kinds[t] == kind for t in titles)}
        rows.append(
            [
                kind,
                sum(1 for k in kinds.values() if k == kind),
                len(group),
                len(group & should),
                len(group & told),
            ]
        )
    print_table(["change", "documents", "askers cited", "should be told", "told"], rows)
    checks = {
        "turns": people,
        "turns_citing_their_document": sum(
            1 for p, n in asked_about.items() if names[n] in cited.get(p, set())
        ),
        "should_be_told": len(should),
        "should_be_told_by_construction": len(by_construction),
        "told": len(told),
        "told_and_should": len(told & should),
        "missed": len(should - told),
        "told_about_a_reworded_only_change": len(told & reworded_only),
        "statuses": statuses,
        "ask_seconds": round(ask_s, 1),
        "correction_seconds": round(correct_s, 1),
    }
    for name, value in checks.items():
        print(f"{name}: {value}")
    path = write_json("corrections", {"rows": rows, "checks": checks})
    print(f"wrote {path}")
    await db.dispose()


async def cited_titles(db: Any) -> dict[int, set[str]]:
    """Each asker's stored answer's cited titles."""
    async with db.sessions() as session:
        rows = await session.execute(
            text(
                "SELECT c.user_id, a.citations FROM messages a JOIN conversations c"
                " ON c.id = a.conversation_id"
                " WHERE a.role = 'assistant' AND c.platform = 'telegram'"
            )
        )
        out: dict[int, set[str]] = {}
        for user, citations in rows:
            cites = json.loads(citations) if isinstance(citations, str) else citations or []
            out.setdefault(int(user), set()).update(str(c["document"]) for c in cites)
        return out


async def deferred(db: Any) -> list[dict[str, Any]]:
    """The corrections jobs the changes deferred, in order (run here, not by a worker)."""
    async with db.sessions() as session:
        rows = await session.execute(
            text(
                "SELECT args FROM procrastinate_jobs"
                " WHERE task_name = 'correct_answers' ORDER BY id"
            )
        )
        return [json.loads(r[0]) if isinstance(r[0], str) else dict(r[0]) for r in rows]


async def told_people(db: Any) -> set[int]:
    """The chats the corrections queued a message to."""
    async with db.sessions() as session:
        rows = await session.execute(text("SELECT chat FROM outbox WHERE key LIKE 'correction:%'"))
        return {int(r[0]) for r in rows}


async def status_counts(db: Any) -> dict[str, int]:
    async with db.sessions() as session:
        rows = await session.execute(text("SELECT status FROM answer_corrections"))
        return dict(Counter(str(r[0]) for r in rows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--documents", type=int, default=20)
    options = parser.parse_args()
    asyncio.run(main(options.people, options.documents))
