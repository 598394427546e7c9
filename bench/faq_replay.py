"""FAQ turns recorded once, rules for answering an entry replayed on the record.

Each whole turn of bench.faq's halves (the answerable paraphrases and those
whose entry was removed, bench.answers.faq_split) is run once without a model;
the record keeps its outcome (refused, the documents cited) and every FAQ
entry in the top ten of the keyword, vector and fused searches with its
question's cosine (graph.cross_entries.add_entry_cosines: as written or in
its context), its answer's cosine (graph.faq_entry.entry_answer), and its rank
on each side. From the record:

- why each answerable paraphrase was refused: its entry in no search's top
  ten, another entry's question nearer, its lead under 0.05, 0.05-0.12 (the
  word-based test, or left out of the turn), 0.12 or more (other);
- a rule replayed: where the turn refused, the rule may name the entry that
  answers (the nearest by question, say); a paraphrase is then answered from
  its entry or another's, and a gold-removed question is answered by a
  sibling. Where the turn answered, it stays as it was (a rule only adds).

`python -m bench.faq_replay --out FILE [--sets citizen …]` records (a few
minutes a set), `--record FILE` reads an earlier record; both print the
reasons and the joint-lead rule's grid (the entry nearest by question whose
question and answer each lead the other entries' by x). Tune on dev halves
only: held-out halves are a check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.answers import default_searcher, faq_split, run_set, service_for
from bench.faq import measured_sets
from bench.searching import configured_embedder, corpus_database
from bot.settings import Settings
from graph.cross_entries import add_entry_cosines
from graph.cross_marks import cosines
from graph.faq_entry import entry_answer

Rule = Callable[[list[dict[str, Any]]], dict[str, Any] | None]
SIDES = ("keyword", "vector", "hybrid")
TOP = 10


async def entry_features(searcher: Any, embedder: Any, question: str) -> list[dict[str, Any]]:
    """The FAQ entries in any side's top `TOP` for `question`, with their cosines and ranks."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for side in SIDES:
        hits = await searcher.search(question, top_k=TOP, mode=side, per_document=TOP)
        entries = [h for h in hits if getattr(h, "question", None)]
        for rank, hit in enumerate(dict.fromkeys((h.document, h.question) for h in entries), 1):
            first = next(h for h in entries if (h.document, h.question) == hit)
            item = found.setdefault(
                hit,
                {
                    "document": first.document,
                    "question": first.question,
                    "heading": first.heading,
                    "text": first.text,
                },
            )
            item[f"{side}_rank"] = rank
    items = list(found.values())
    await add_entry_cosines(embedder, question, items)
    answers = [entry_answer(i["text"], i["question"]) for i in items]
    for item, cosine in zip(items, await cosines(embedder, question, answers), strict=True):
        item["answer_cosine"] = round(cosine, 4)
        del item["text"]
    return [i for i in items if "question_cosine" in i]


async def record(sets: list[str] | None, answerable: int, removed: int) -> list[dict[str, Any]]:
    """Every turn of the chosen sets' halves, with its entries' features."""
    settings = Settings()
    out: list[dict[str, Any]] = []
    for name, entries in measured_sets(sets).items():
        passages, asked, gone = faq_split(entries, answerable, removed)
        db = await corpus_database("faq_replay_", name, passages, settings)
        service = service_for(db, settings)
        # the turn's searcher and embedder, built alike
        searcher = default_searcher(db, settings)
        embedder = configured_embedder(settings).model
        await service.ask("warm up")
        for kind, questions in (("answerable", asked), ("removed", gone)):
            for q, turn in zip(questions, await run_set(service, questions), strict=True):
                out.append(
                    {
                        "half": name,
                        "kind": kind,
                        "text": q.text,
                        "gold": [q.passage, q.answers[0]],
                        "refused": turn["refused"],
                        "cited": turn["cited"],
                        "entries": await entry_features(searcher, embedder, q.text),
                    }
                )
        await db.dispose()
        print(f"recorded {name}", flush=True)
    return out


def _key(entry: dict[str, Any]) -> list[str]:
    return [entry["document"], entry["question"]]


def lead(entry: dict[str, Any], entries: list[dict[str, Any]], field: str) -> float:
    """`entry`'s `field` minus the best other entry's (1.0 below itself when alone)."""
    others = [float(e[field]) for e in entries if _key(e) != _key(entry)]
    return float(entry[field]) - max(others, default=float(entry[field]) + 1.0)


def reason(turn: dict[str, Any]) -> str:
    """Why an answerable paraphrase was refused, from its entries' question cosines."""
    entries = turn["entries"]
    gold = [e for e in entries if _key(e) == turn["gold"]]
    if not gold:
        return "entry in no top ten"
    margin = lead(gold[0], entries, "question_cosine")
    if margin < 0:
        return "another's question nearer"
    if margin < 0.05:
        return "lead < 0.05"
    return "lead 0.05-0.12" if margin < 0.12 else "lead >= 0.12"


def joint_lead(x: float) -> Rule:
    """The entry nearest by question, when its question and its answer each lead the
    other entries' by `x`."""

    def rule(entries: list[dict[str, Any]]) -> dict[str, Any] | None:
        if len(entries) < 2:
            return None
        top = max(entries, key=lambda e: float(e["question_cosine"]))
        ok = lead(top, entries, "question_cosine") >= x and lead(top, entries, "answer_cosine") >= x
        return top if ok else None

    return rule


def replay(turns: list[dict[str, Any]], rule: Rule) -> dict[str, dict[str, float]]:
    """Per half: answerable refused, answered from another entry, gold-removed refused."""
    out: dict[str, dict[str, float]] = {}
    for half in dict.fromkeys(t["half"] for t in turns):
        asked = [t for t in turns if t["half"] == half and t["kind"] == "answerable"]
        gone = [t for t in turns if t["half"] == half and t["kind"] == "removed"]
        named = [rule(t["entries"]) if t["refused"] else None for t in asked]
        refused = [t["refused"] and e is None for t, e in zip(asked, named, strict=True)]
        wrong = [e is not None and _key(e) != t["gold"] for t, e in zip(asked, named, strict=True)]
        out[half] = {
            "answerable": len(asked),
            "refused": sum(refused) / max(len(asked), 1),
            "other entry": sum(wrong) / max(len(asked), 1),
            "removed": len(gone),
            "removed refused": sum(t["refused"] and rule(t["entries"]) is None for t in gone)
            / max(len(gone), 1),
        }
    return out


def main() -> None:
    """Record (or read) the turns, print why they were refused and the joint rule's grid."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", nargs="*", default=None, help="first words of the sets")
    parser.add_argument("--answerable", type=int, default=40)
    parser.add_argument("--removed", type=int, default=40)
    parser.add_argument("--out", help="write the record here")
    parser.add_argument("--record", help="read an earlier record instead of running turns")
    parser.add_argument("--leads", nargs="*", type=float, default=[0.06, 0.07, 0.08, 0.09, 0.10])
    args = parser.parse_args()
    if args.record:
        turns = json.loads(Path(args.record).read_text("utf-8"))
    else:
        turns = asyncio.run(record(args.sets, args.answerable, args.removed))
        if args.out:
            Path(args.out).write_text(json.dumps(turns, ensure_ascii=False), "utf-8")
    for half in dict.fromkeys(t["half"] for t in turns):
        why = Counter(
            reason(t)
            for t in turns
            if t["half"] == half and t["kind"] == "answerable" and t["refused"]
        )
        print(f"{half}: refused answerable by reason {dict(why)}")
    for x in [None, *args.leads]:
        figures = replay(turns, joint_lead(x) if x is not None else (lambda _: None))
        print(f"\njoint lead {x if x is not None else '(none: the turns as run)'}")
        for half, f in figures.items():
            print(
                f"  {half:28s} answerable refused {f['refused']:.3f} ({f['answerable']:.0f})"
                f" other entry {f['other entry']:.3f}"
                f"  gold removed refused {f['removed refused']:.3f} ({f['removed']:.0f})"
            )


if __name__ == "__main__":
    main()
