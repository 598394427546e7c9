"""Cross-language answers: questions in one language about documents in another, no LLM.

Usage: .venv/bin/python -m bench.crosslang [--answerable 100] [--removed 40]
       [--directions en>zh-hans zh-hans>en en>zh-hant zh-hant>en] [--baseline ROOT]

XQuAD is parallel: xquad.en.json and xquad.zh.json hold the same questions
(same ids) about the same passages. A direction "en>zh-hans" ingests the
Chinese passages and asks the English questions; "zh-hant>en" asks the Chinese
questions converted to Traditional (OpenCC) about the English passages; and so
on. Per direction a fixed sample of passages is removed before ingesting: their
questions must be refused ("gold removed"). The questions are split by article:
articles of even index (in file order) are the dev half the thresholds of
graph.cross_language were tuned on; odd ones are held out and only reported.

Per direction and half: citation hit (the gold passage cited), the share of
answerable questions refused, the share of gold-removed questions refused, and
the share of answerable questions whose answer quotes the gold answer as the
passage writes it (the sentence quoted holds it).

Each answerable turn that misses the gold passage is given its reason, from the
candidates the turn's last grading (graph.nodes.retrieval_checker) judged: the
gold passage not among them ("not retrieved"), among them but not grounded
("under the bar": its evidence by meaning, its lead and the best other
document's evidence are kept in the results), or
grounded and still not cited ("grounded, not cited": another passage's sentences
were quoted, or none). Printed as a count per direction and half.
With `--baseline ROOT` the same run first measures another checkout's code (this
file run with PYTHONPATH=ROOT, in a process of its own). Prints Markdown tables
and writes bench/results/crosslang.json. DRCD has no English questions: not used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import graph.nodes.retrieval_checker as checker
from bench.answers import service_for
from bench.common import (
    EVAL_DIR,
    RESULTS_DIR,
    Question,
    load_squad,
    mean,
    print_table,
    write_json,
)
from bench.searching import corpus_database
from bot.settings import Settings
from graph.cross_language import meaning_grounding
from graph.grounding import is_grounded
from graph.state import GraphState, Retrieval
from textkit.scripts import to_simplified, to_traditional

DIRECTIONS = ("en>zh-hans", "zh-hans>en", "en>zh-hant", "zh-hant>en")
SEED = 20261128


def _file(language: str) -> Path:
    return EVAL_DIR / "xquad" / f"xquad.{'en' if language == 'en' else 'zh'}.json"


def _script(text: str, language: str) -> str:
    return to_traditional(text) if language == "zh-hant" else text


def direction_sets(
    direction: str, answerable: int, removed: int
) -> tuple[dict[str, str], dict[str, dict[str, list[Question]]]]:
    """The passages to ingest and, per half (dev / held-out), the answerable and
    gold-removed questions of `direction` ("<question language>><document language>")."""
    asked, written = direction.split(">")
    passages, _ = load_squad(_file(written))
    _, questions = load_squad(_file(asked))
    passages = {pid: _script(text, written) for pid, text in passages.items()}
    questions = [Question(q.id, _script(q.text, asked), q.passage, q.answers) for q in questions]
    articles = list(dict.fromkeys(pid.rsplit(" §", 1)[0] for pid in passages))
    rng = random.Random(SEED)
    gone: set[str] = set()
    halves: dict[str, dict[str, list[Question]]] = {}
    for half, parity in (("dev", 0), ("held-out", 1)):
        mine = {a for i, a in enumerate(articles) if i % 2 == parity}
        own = [q for q in questions if q.passage.rsplit(" §", 1)[0] in mine]
        pids = sorted({q.passage for q in own})
        rng.shuffle(pids)
        # passages are removed until `removed` of their questions are gold-removed
        taken: list[Question] = []
        for pid in pids:
            if len(taken) >= removed:
                break
            gone.add(pid)
            taken += [q for q in own if q.passage == pid]
        kept = [q for q in own if q.passage not in gone]
        rng.shuffle(kept)
        halves[half] = {"answerable": kept[:answerable], "removed": taken[:removed]}
    return {k: v for k, v in passages.items() if k not in gone}, halves


def written_answers(direction: str) -> dict[str, list[str]]:
    """Each question's gold answers as its passage's language writes them (by id: the
    files are parallel), compared in Simplified and lower case."""
    _, written = direction.split(">")
    _, questions = load_squad(_file(written))
    return {q.id: [_span(a) for a in q.answers if a.strip()] for q in questions}


def _span(text: str) -> str:
    return to_simplified(text).casefold()


REASONS = ("not retrieved", "under the bar", "grounded, not cited")


class LastGrading:
    """Keeps the candidates of the turn's last grading: `graph.nodes.retrieval_checker`'s
    `grade` wrapped while the context is open (the bench asks one question at a time)."""

    def __init__(self) -> None:
        self.evidence: list[dict[str, Any]] = []
        self._grade = checker.grade

    def __enter__(self) -> LastGrading:
        self.evidence = []  # a turn that never grades (blocked, forms only) judged nothing

        def grade(
            state: GraphState, max_loops: int, floor: float, has_llm: bool
        ) -> tuple[Retrieval, list[dict[str, Any]]]:
            self.evidence = [dict(e) for e in state.get("evidence", [])]
            return self._grade(state, max_loops, floor, has_llm)

        checker.grade = grade
        return self

    def __exit__(self, *_: object) -> None:
        checker.grade = self._grade


def why_missed(gold: str, evidence: list[dict[str, Any]]) -> dict[str, Any]:
    """Why an answerable turn did not cite its gold passage (one of `REASONS`), with the
    gold candidate's figures when it was judged: its evidence by meaning, its lead over
    the other documents' candidates and the best other document's evidence."""
    own = [e for e in evidence if e.get("document") == gold]
    if not own:
        return {"reason": REASONS[0]}
    best = max(own, key=meaning_grounding)
    rivals = [meaning_grounding(e) for e in evidence if e.get("document") != gold]
    return {
        "reason": REASONS[2] if any(is_grounded(e) for e in own) else REASONS[1],
        "evidence": round(meaning_grounding(best), 4),
        "lead": best.get("meaning_lead"),
        "best_rival": round(max(rivals), 4) if rivals else None,
    }


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Every direction's turns with the code on PYTHONPATH: per direction and half, figures."""
    settings = Settings()
    out: dict[str, Any] = {}
    for direction in args.directions:
        passages, halves = direction_sets(direction, args.answerable, args.removed)
        spans = written_answers(direction)
        db = await corpus_database("crosslang_", direction, passages, settings)
        service = service_for(db, settings)
        await service.ask("warm up")
        last = LastGrading()
        for half, sets in halves.items():
            turns: dict[str, list[dict[str, Any]]] = {}
            for kind, questions in sets.items():
                turns[kind] = []
                for q in questions:
                    started = time.perf_counter()
                    with last:
                        r = await service.ask(q.text)
                    cited = [c["document"] for c in r.citations]
                    missed = kind == "answerable" and q.passage not in cited
                    turns[kind].append(
                        {
                            "id": q.id,
                            "question": q.text,
                            "gold": q.passage,
                            "cited": cited,
                            "refused": not r.citations,
                            "answer": r.answer,
                            "span": any(a in _span(r.answer) for a in spans.get(q.id, [])),
                            "ms": round((time.perf_counter() - started) * 1000, 1),
                            "why": why_missed(q.passage, last.evidence) if missed else None,
                        }
                    )
            ans, una = turns["answerable"], turns["removed"]
            out[f"{direction} {half}"] = {
                "answerable": len(ans),
                "gold_removed": len(una),
                "citation_hit": mean([1.0 if t["gold"] in t["cited"] else 0.0 for t in ans]),
                "refused_answerable": mean([1.0 if t["refused"] else 0.0 for t in ans]),
                "refused_gold_removed": mean([1.0 if t["refused"] else 0.0 for t in una]),
                # the answer quotes the gold answer's words (answerable turns)
                "gold_span": mean([1.0 if t["span"] and not t["refused"] else 0.0 for t in ans]),
                # answerable turns missing the gold passage, by reason (refused or not)
                "missed": {
                    reason: sum(1 for t in ans if (t["why"] or {}).get("reason") == reason)
                    for reason in REASONS
                },
                "turns": turns,
            }
            print(f"done {direction} {half}", file=sys.stderr, flush=True)
        await db.dispose()
    return out


def baseline_figures(root: str, args: argparse.Namespace) -> dict[str, Any]:
    """The same measurement with the checkout at `root` (this file, its code on PYTHONPATH)."""
    # kept beside the results: a later failure of this run does not lose it
    target = RESULTS_DIR / "crosslang.baseline.json"
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, str(Path(__file__).resolve()), "--measure-to", str(target)]
    command += ["--answerable", str(args.answerable), "--removed", str(args.removed)]
    command += ["--directions", *args.directions]
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": root})
    return dict(json.loads(target.read_text("utf-8")))


def main() -> None:
    """Measure (the baseline first, when given), print the tables, write the results."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answerable", type=int, default=100, help="per direction and half")
    parser.add_argument("--removed", type=int, default=40, help="gold-removed, per half")
    parser.add_argument("--directions", nargs="*", default=list(DIRECTIONS))
    parser.add_argument("--baseline", help="another checkout's root, measured first")
    parser.add_argument(
        "--baseline-json", help="the baseline's figures kept by an earlier run (same sizes)"
    )
    parser.add_argument("--measure-to", help=argparse.SUPPRESS)  # the baseline's process
    args = parser.parse_args()
    if args.measure_to:
        figures = asyncio.run(measure(args))
        Path(args.measure_to).write_text(json.dumps(figures, ensure_ascii=False), "utf-8")
        return
    runs: dict[str, dict[str, Any]] = {}
    if args.baseline_json:  # a baseline measured before with the same sizes
        kept = dict(json.loads(Path(args.baseline_json).read_text("utf-8")))
        # a whole results file (bench/results/crosslang.json): the code it measured
        if "runs" in kept and "this code" not in kept["runs"]:
            parser.error(f"{args.baseline_json} holds no figures of the code it measured")
        runs["baseline"] = kept["runs"]["this code"] if "runs" in kept else kept
    elif args.baseline:
        runs["baseline"] = baseline_figures(args.baseline, args)
    runs["this code"] = asyncio.run(measure(args))
    results: dict[str, Any] = {"runs": runs}
    for half in ("dev", "held-out"):
        rows = []
        for code, figures in runs.items():
            for direction in args.directions:
                f = figures[f"{direction} {half}"]
                rows.append(
                    [
                        code,
                        direction,
                        f["answerable"],
                        f["gold_removed"],
                        f["citation_hit"],
                        f["refused_answerable"],
                        f["refused_gold_removed"],
                        f.get("gold_span", ""),
                    ]
                )
        print(f"\n## Cross-language answers, no LLM ({half})\n")
        results[f"table {half}"] = print_table(
            [
                "code",
                "question>documents",
                "answerable",
                "gold removed",
                "citation hit",
                "refused (answerable)",
                "refused (gold removed)",
                "answer holds gold span",
            ],
            rows,
        )
        missed = [
            [code, direction, *figures[f"{direction} {half}"]["missed"].values()]
            for code, figures in runs.items()
            for direction in args.directions
            if "missed" in figures[f"{direction} {half}"]  # kept by an earlier version
        ]
        if missed:
            print(f"\n## Answerable questions whose gold passage was not cited ({half})\n")
            headers = ["code", "question>documents", *REASONS]
            results[f"missed {half}"] = print_table(headers, missed)
    print(f"\nwrote {write_json('crosslang', results)}")


if __name__ == "__main__":
    main()
