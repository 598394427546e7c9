"""Answer-memory benchmark: a repeated-question workload with the memory off and on.

Usage: .venv/bin/python -m bench.memory [--turns 300] [--questions 100] [--llm-delay 0.2]
300 turns drawn Zipf-like (s = 1.1, fixed seed) from 100 DRCD dev questions, each
turn in a new conversation; a third of the repeats are asked in the other script
(Simplified). The scripted OpenAI-compatible fake (bench.answers.scripted_llm)
answers every LLM call after `--llm-delay` seconds, standing in for a model.
Both modes run in the same process on the same database: memory off (baseline),
then memory on from an empty memory. A false hit is an answer served from memory
whose citations differ from what the memory-off turn cited for the same question.
Prints a Markdown table and writes bench/results/memory.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from dataclasses import replace
from typing import Any

from bench.answers import default_searcher, scripted_llm
from bench.common import (
    CORPORA,
    connect,
    fresh_database,
    load_squad,
    mean,
    pct,
    print_table,
    write_json,
)
from bench.searching import ingest_corpus
from bot.settings import Settings
from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.models import build_chat_model
from storage.embeddings import build_embedder
from storage.forms import FormFinder
from storage.memory import AnswerMemory
from tests.support.fake_openai import FakeOpenAI
from textkit.scripts import to_simplified


def workload(texts: list[str], turns: int, seed: int) -> list[tuple[int, str]]:
    """(question index, text) per turn: Zipf-like draws, a third of repeats in Simplified."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) ** 1.1 for rank in range(len(texts))]
    seen: set[int] = set()
    out = []
    for index in rng.choices(range(len(texts)), weights, k=turns):
        repeat = index in seen
        seen.add(index)
        other = repeat and rng.random() < 1 / 3
        out.append((index, to_simplified(texts[index]) if other else texts[index]))
    return out


async def run_mode(service: AnswerService, turns: list[tuple[int, str]]) -> list[dict[str, Any]]:
    """Each turn in a new conversation; what it cost and cited."""
    out = []
    for n, (index, question) in enumerate(turns):
        start = time.perf_counter()
        result = await service.ask(question, conversation=f"bench-{n}")
        out.append(
            {
                "question": index,
                "ms": (time.perf_counter() - start) * 1000,
                "llm_calls": result.llm_calls,
                "memory": result.outcome == "memory",
                "cited": sorted(c["document"] for c in result.citations),
                "language": result.language,
            }
        )
    return out


def summary(name: str, turns: list[dict[str, Any]], fresh: dict[int, list[str]]) -> list[Any]:
    hits = [t for t in turns if t["memory"]]
    false_hits = [t for t in hits if t["cited"] != fresh.get(t["question"])]
    calls = [float(t["llm_calls"]) for t in turns]
    ms = [t["ms"] for t in turns]
    return [
        name,
        len(turns),
        mean(calls),
        max(calls),
        pct(ms, 50),
        pct(ms, 95),
        len(hits) / len(turns),
        len(false_hits),
    ]


async def main(args: argparse.Namespace) -> None:
    settings = Settings()
    passages, questions = load_squad(CORPORA["drcd (zh-hant)"])
    random.Random(args.seed).shuffle(questions)
    sample = questions[: args.questions]
    url, _server = await asyncio.to_thread(fresh_database, "bench_memory")
    db = connect(url)
    await ingest_corpus(db, passages, settings)
    fake = FakeOpenAI(responder=lambda body: replace(scripted_llm(body), delay=args.llm_delay))
    fake.start()
    embedder = build_embedder(None, None, None, None)
    llm = build_chat_model(fake.url, "bench", "fake", timeout=10)
    context = GraphContext(
        searcher=default_searcher(db, settings, embedder),
        forms=FormFinder(db),
        llm=llm,
        llm_timeout=10,
        embedder=embedder.model,
    )
    memory = AnswerMemory(db, embedder, settings.memory_ttl_days, settings.memory_min_similarity)
    turns = workload([q.text for q in sample], args.turns, args.seed)
    await AnswerService(db, context).ask("warm up")
    off = await run_mode(AnswerService(db, context), turns)
    on = await run_mode(AnswerService(db, context, memory=memory), turns)
    fake.stop()
    fresh: dict[int, list[str]] = {}
    for t in off:
        fresh.setdefault(t["question"], t["cited"])
    repeats = len(turns) - len({i for i, _ in turns})
    other_script = sum(1 for i, text in turns if text != sample[i].text)
    print(
        f"\n## Answer memory: {len(turns)} turns over {len(sample)} DRCD questions,"
        f" {repeats} repeats ({other_script} in the other script), fake LLM"
        f" answering after {args.llm_delay} s\n"
    )
    table = print_table(
        [
            "memory",
            "turns",
            "LLM calls/turn",
            "max calls",
            "turn p50 ms",
            "turn p95 ms",
            "hit rate",
            "false hits",
        ],
        [summary("off (baseline)", off, fresh), summary("on", on, fresh)],
    )
    gold = {i: sample[i].passage for i, _ in turns}
    cited_gold = {
        name: mean([1.0 if gold[t["question"]] in t["cited"] else 0.0 for t in rows])
        for name, rows in (("off", off), ("on", on))
    }
    print(f"\ngold passage cited: off {cited_gold['off']:.3f}, on {cited_gold['on']:.3f}")
    payload = {"table": table, "cited_gold": cited_gold, "off": off, "on": on, "args": vars(args)}
    print(f"wrote {write_json('memory', payload)}")
    await db.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--llm-delay", type=float, default=0.2, help="seconds per LLM reply")
    parser.add_argument("--seed", type=int, default=20261123)
    asyncio.run(main(parser.parse_args()))
