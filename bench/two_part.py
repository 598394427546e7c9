"""Two-part question benchmark: two XQuAD questions about one passage, asked as one.

Usage: .venv/bin/python -m bench.two_part [--pairs 40] [--corpora xquad.en xquad.zh] [--across]
Each pair is two questions with the same gold passage (with --across: two
passages of one article, as a fee and a list of documents sit in two sections
of one page), joined by " and " in
English ("Which team won and who was the coach?") and as "Q1？Q2？" in Chinese.
The whole corpus is ingested; each joined question is asked in no-LLM mode.
Per pair: whether it was split, whether the gold passage is cited, and whether
the answer holds a gold span of *each* question (both parts answered, each gold
passage cited).
Prints a Markdown table and writes bench/results/two_part.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from typing import Any

from bench.answers import contains_span, service_for
from bench.common import (
    CORPORA,
    Question,
    load_squad,
    mean,
    print_table,
    write_json,
)
from bench.searching import corpus_database
from bot.settings import Settings


def pairs(
    questions: list[Question], count: int, seed: int, across: bool = False
) -> list[tuple[Question, Question]]:
    """`count` pairs of questions on one passage (`across`: on two consecutive passages
    of one article), fixed seed, each passage in one pair at most."""
    by_passage: dict[str, list[Question]] = {}
    for q in questions:
        by_passage.setdefault(q.passage, []).append(q)
    keys = list(by_passage)
    if across:
        found = [
            (by_passage[a][0], by_passage[b][0])
            for a, b in zip(keys[0::2], keys[1::2], strict=False)
            if a.rsplit(" §", 1)[0] == b.rsplit(" §", 1)[0]
        ]
    else:
        found = [(qs[0], qs[1]) for qs in by_passage.values() if len(qs) >= 2]
    random.Random(seed).shuffle(found)
    return found[:count]


def joined(first: str, second: str) -> str:
    """The two questions asked as one."""
    first, second = first.strip(), second.strip()
    if first.isascii():
        second = second[:1].lower() + second[1:] if second[:2] != second[:2].upper() else second
        return f"{first.rstrip('?').rstrip()} and {second}"
    return f"{first.rstrip('?？')}？{second}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--corpora", nargs="*", default=["xquad.en", "xquad.zh"])
    parser.add_argument("--across", action="store_true", help="the two questions' passages differ")
    args = parser.parse_args()
    settings = Settings()
    rows: list[list[Any]] = []
    results: dict[str, Any] = {}
    for name, path in CORPORA.items():
        if name.split()[0] not in args.corpora:
            continue
        passages, questions = load_squad(path)
        asked = pairs(questions, args.pairs, seed=20261128, across=args.across)
        db = await corpus_database("two_part_", name, passages, settings)
        service = service_for(db, settings)
        await service.ask("warm up")
        turns = []
        for a, b in asked:
            result = await service.ask(joined(a.text, b.text))
            cited = [c["document"] for c in result.citations]
            turns.append(
                {
                    "question": joined(a.text, b.text),
                    "split": any(s.startswith("planner:split") for s in result.decision_path),
                    "gold_cited": a.passage in cited and b.passage in cited,
                    "first": contains_span(result.answer, a.answers),
                    "second": contains_span(result.answer, b.answers),
                    "refused": not result.citations,
                    "answer": result.answer,
                }
            )
        await db.dispose()
        both = [1.0 if t["first"] and t["second"] and t["gold_cited"] else 0.0 for t in turns]
        rows.append(
            [
                name,
                len(turns),
                mean([1.0 if t["split"] else 0.0 for t in turns]),
                mean([1.0 if t["gold_cited"] else 0.0 for t in turns]),
                mean([1.0 if t["first"] else 0.0 for t in turns]),
                mean([1.0 if t["second"] else 0.0 for t in turns]),
                mean(both),
                mean([1.0 if t["refused"] else 0.0 for t in turns]),
            ]
        )
        results[name] = turns
        print(f"done {name}", flush=True)
    on = "two passages of one article" if args.across else "one passage"
    print(f"\n## Two-part questions (two XQuAD questions on {on}), no-LLM mode\n")
    results["table"] = print_table(
        [
            "corpus",
            "pairs",
            "split",
            "gold cited (each part's)",
            "first part's span",
            "second part's span",
            "both spans, gold cited",
            "refused",
        ],
        rows,
    )
    print(f"\nwrote {write_json('two_part' + ('_across' if args.across else ''), results)}")


if __name__ == "__main__":
    asyncio.run(main())
