"""Answer benchmark: the whole graph on the evaluation sets, no-LLM mode and a fake LLM.

Usage: .venv/bin/python -m bench.answers [--answerable 200] [--unanswerable 100] [--llm 100]
       [--corpora drcd xquad.en xquad.zh]
For each corpus: remove the gold passages of `--unanswerable` sampled questions,
ingest the rest, then ask (fixed seed) answerable and unanswerable questions.
Prints Markdown tables and writes bench/results/answers.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from typing import Any

from bench.common import (
    CORPORA,
    Question,
    load_squad,
    mean,
    pct,
    print_table,
    write_json,
)
from bench.faq import FaqEntry, faq_sets
from bench.faq import corpus as faq_corpus
from bench.faq import questions as faq_questions
from bench.searching import configured_embedder, corpus_database
from bot.settings import Settings
from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.models import build_chat_model
from graph.nodes.query_builder import rewrite_for_retry
from storage.db import Database
from storage.embeddings import Embedder
from storage.forms import FormFinder
from storage.search import HybridSearcher
from tests.support.fake_openai import FakeOpenAI, Reply, first_source_sentence
from textkit.scripts import normalise_width, to_simplified


def contains_span(answer: str, spans: tuple[str, ...]) -> bool:
    """The answer holds a gold span (script- and width-insensitive)."""
    norm = to_simplified(normalise_width(answer)).lower()
    return any(to_simplified(normalise_width(s)).lower() in norm for s in spans)


def overhead_ms(timings: dict[str, float]) -> float:
    """Wall time of the turn minus the time spent waiting on the LLM server."""
    return timings["total"] - sum(v for k, v in timings.items() if k.startswith("llm:"))


def scripted_llm(body: dict[str, Any]) -> Reply:
    """The fake model's reply: it plans simple_faq with the question as the query and
    an alternate without question words, and answers by quoting source [1]'s first
    sentence with its citation (a faithful but unsophisticated model)."""
    system = str(body["messages"][0]["content"])
    question = str(body["messages"][-1]["content"])
    if system.startswith("You are the planning step"):
        plan = {
            "task_type": "simple_faq",
            "should_retrieve": True,
            "query": question,
            "alternates": [rewrite_for_retry(question)],
        }
        return Reply(json.dumps(plan, ensure_ascii=False))
    answer = {"answerable": True, "answer": f"{first_source_sentence(body)} [1]", "citations": [1]}
    return Reply(json.dumps(answer, ensure_ascii=False))


def default_searcher(
    db: Database, settings: Settings, embedder: Embedder | None = None
) -> HybridSearcher:
    """The hybrid searcher with the configured weights (the local embedder by default)."""
    return HybridSearcher(
        db,
        embedder or configured_embedder(settings),
        settings.search_candidates,
        settings.search_keyword_weight,
        settings.search_vector_weight,
        settings.search_fusion,
    )


def service_for(
    db: Database, settings: Settings, llm: Any = None, telemetry: Any = None
) -> AnswerService:
    embedder = configured_embedder(settings)
    searcher = default_searcher(db, settings, embedder)
    context = GraphContext(
        searcher=searcher, forms=FormFinder(db), llm=llm, llm_timeout=10, embedder=embedder.model
    )
    return AnswerService(db, context, telemetry=telemetry)


async def run_set(
    service: AnswerService, questions: list[Question], conversations: str | None = None
) -> list[dict[str, Any]]:
    """Each question asked once; with `conversations`, each in its own named conversation
    (`<conversations>-<i>`) that a later turn may continue."""
    out = []
    for i, q in enumerate(questions):
        t0 = time.perf_counter()
        r = await service.ask(
            q.text, conversation=f"{conversations}-{i}" if conversations else None
        )
        out.append(
            {
                "gold": q.passage,
                "answers": q.answers,
                "wall_ms": (time.perf_counter() - t0) * 1000,
                "cited": [c["document"] for c in r.citations],
                "cited_passages": [str(c.get("passage") or "") for c in r.citations],
                "answer": r.answer,
                "refused": not r.citations and r.intent != "form_download",
                "llm_calls": r.llm_calls,
                "overhead_ms": overhead_ms(r.timings_ms),
                "loops": r.retrieval_loops,
                "decision_path": r.decision_path,
                "timings_ms": r.timings_ms,
                # a refusal's FAQ questions near the one asked (none in older code)
                "related": list(getattr(r, "related_questions", [])),
            }
        )
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answerable", type=int, default=200)
    parser.add_argument("--unanswerable", type=int, default=100)
    parser.add_argument("--llm", type=int, default=100, help="questions run with the fake LLM")
    parser.add_argument(
        "--corpora", nargs="*", default=[*CORPORA, "stackfaq", "xquad-faq"], help="names to run"
    )
    args = parser.parse_args()
    settings = Settings()
    rng = random.Random(20261122)
    rows: list[list[Any]] = []
    llm_rows: list[list[Any]] = []
    results: dict[str, Any] = {}
    fake = FakeOpenAI().start()
    calls_rows: list[list[Any]] = []
    half_rows: list[list[Any]] = []
    for name, path in {**CORPORA, **dict.fromkeys(faq_sets())}.items():
        if name not in args.corpora and name.split()[0] not in args.corpora:
            continue
        halves: dict[str, str] = {}
        if path is None:
            entries = faq_sets()[name]
            halves = {e.page: e.half for e in entries if e.half}
            passages, answerable, unanswerable = faq_split(
                entries, args.answerable, args.unanswerable
            )
        else:
            passages, questions = load_squad(path)
            rng.shuffle(questions)
            removed = {q.passage for q in questions[: args.unanswerable]}
            unanswerable = questions[: args.unanswerable]
            answerable = [q for q in questions if q.passage not in removed][: args.answerable]
            passages = {k: v for k, v in passages.items() if k not in removed}
        db = await corpus_database("answers_", name, passages, settings)
        plain = service_for(db, settings)
        await plain.ask("warm up")
        ans = await run_set(plain, answerable)
        una = await run_set(plain, unanswerable)
        over = [r["overhead_ms"] for r in ans + una]
        row = {
            "citation_hit": mean([1.0 if r["gold"] in r["cited"] else 0.0 for r in ans]),
            "contains_gold_span": mean(
                [1.0 if contains_span(r["answer"], r["answers"]) else 0.0 for r in ans]
            ),
            "refusal_answerable": mean([1.0 if r["refused"] else 0.0 for r in ans]),
            "refusal_gold_removed": mean([1.0 if r["refused"] else 0.0 for r in una]),
            "overhead_p50": pct(over, 50),
            "overhead_p95": pct(over, 95),
            "wall_p95": pct([r["wall_ms"] for r in ans + una], 95),
            "mean_loops": mean([float(r["loops"]) for r in ans]),
        }
        half_rows += by_half(name, halves, ans, una)
        rows.append(
            [
                name,
                len(ans),
                len(una),
                row["citation_hit"],
                row["contains_gold_span"],
                row["refusal_answerable"],
                row["refusal_gold_removed"],
                row["mean_loops"],
                row["overhead_p50"],
                row["overhead_p95"],
                row["wall_p95"],
            ]
        )
        # The same turns with a scripted OpenAI-compatible server (see `scripted_llm`).
        llm = build_chat_model(fake.url, "bench", "fake", timeout=10)
        with_llm = service_for(db, settings, llm)
        sample = answerable[: args.llm]
        fake.requests.clear()
        fake.responder = scripted_llm
        llm_results = await run_set(with_llm, sample)
        llm_una = await run_set(with_llm, unanswerable[: args.llm])
        llm_oos = await run_set(with_llm, [Question("oos", q, "", ()) for q in OUT_OF_SCOPE])
        llm_chat = await run_set(with_llm, [Question("chat", q, "", ()) for q in CHIT_CHAT])
        row["fake_llm_citation_hit"] = mean(
            [1.0 if r["gold"] in r["cited"] else 0.0 for r in llm_results]
        )
        row["fake_llm_refusal_gold_removed"] = mean([1.0 if r["refused"] else 0.0 for r in llm_una])
        for kind, turns in (
            ("answerable", llm_results),
            ("gold removed", llm_una),
            ("out of scope", llm_oos),
            ("chit-chat", llm_chat),
        ):
            turn_calls = [float(r["llm_calls"]) for r in turns]
            # `--llm 0` runs no answerable nor gold-removed turns: their max is nan, as their mean
            top = max(turn_calls, default=float("nan"))
            calls_rows.append([name, kind, len(turns), mean(turn_calls), top])
        rows[-1] += [row["fake_llm_citation_hit"], row["fake_llm_refusal_gold_removed"]]
        calls = [float(r["llm_calls"]) for r in llm_results]
        answered = [r for r in llm_results if not r["refused"]]
        within = [1.0 if r["llm_calls"] <= 2 else 0.0 for r in answered]
        over_llm = [r["overhead_ms"] for r in llm_results]
        llm_rows.append(
            [
                name,
                len(sample),
                mean(calls),
                max(calls, default=float("nan")),
                len(fake.requests) / max(len(sample), 1),
                len(answered),
                mean(within),
                pct(over_llm, 50),
                pct(over_llm, 95),
            ]
        )
        results[name] = {"no_llm": row, "no_llm_turns": ans + una, "fake_llm_turns": llm_results}
        await db.dispose()
        print(f"done {name}", flush=True)
    fake.stop()
    print("\n## Answers, no-LLM mode\n")
    results["table"] = print_table(
        [
            "corpus",
            "answerable",
            "gold removed",
            "citation hit",
            "contains gold span",
            "refused (answerable)",
            "refused (gold removed)",
            "mean loops",
            "overhead p50 ms",
            "overhead p95 ms",
            "turn p95 ms (with history and store)",
            "fake LLM: citation hit",
            "fake LLM: refused (gold removed)",
        ],
        rows,
    )
    if half_rows:
        print("\n## Answers, no-LLM mode, by XQuAD half (even articles dev, odd held out)\n")
        results["half_table"] = print_table(
            [
                "corpus",
                "half",
                "answerable",
                "gold removed",
                "citation hit",
                "refused (answerable)",
                "refused (gold removed)",
            ],
            half_rows,
        )
    print("\n## LLM calls per question (fake OpenAI-compatible server)\n")
    results["llm_table"] = print_table(
        [
            "corpus",
            "questions",
            "mean calls",
            "max calls",
            "requests/question",
            "answered",
            "answered in <= 2 calls",
            "overhead p50 ms",
            "overhead p95 ms",
        ],
        llm_rows,
    )
    print("\n## LLM calls per turn by question type (fake OpenAI-compatible server)\n")
    results["calls_table"] = print_table(
        ["corpus", "questions", "count", "mean calls", "max calls"], calls_rows
    )
    print(f"\nwrote {write_json('answers', results)}")


def by_half(
    name: str, halves: dict[str, str], ans: list[dict[str, Any]], una: list[dict[str, Any]]
) -> list[list[Any]]:
    """Rows of citation hit and refusals per half of a set split by article (`halves`:
    gold document → "dev" / "held-out"); none for an unsplit set."""
    out: list[list[Any]] = []
    for half in sorted(set(halves.values())):
        a = [r for r in ans if halves.get(r["gold"]) == half]
        u = [r for r in una if halves.get(r["gold"]) == half]
        out.append(
            [
                name,
                half,
                len(a),
                len(u),
                mean([1.0 if r["gold"] in r["cited"] else 0.0 for r in a]),
                mean([1.0 if r["refused"] else 0.0 for r in a]),
                mean([1.0 if r["refused"] else 0.0 for r in u]),
            ]
        )
    return out


def faq_split(
    entries: list[FaqEntry], answerable: int, unanswerable: int
) -> tuple[dict[str, str], list[Question], list[Question]]:
    """An FAQ set with the gold entries of `unanswerable` paraphrases removed (from
    their page, the rest of the page stays), and paraphrases of the entries kept.

    At most half of the entries asked are removed, so that a small set (a half of
    bench/data's, ~16 entries asked) keeps answerable questions; its removed entries'
    other paraphrases are asked too. A large set's sample is as without the cap."""
    _, where = faq_corpus(entries)
    asked = faq_questions(entries, where, 100_000, seed=1)
    limit = len({_entry_key(q) for q in asked}) // 2
    gone: set[str] = set()
    for q in asked[:unanswerable]:
        if len(gone) >= limit and _entry_key(q) not in gone:
            break
        gone.add(_entry_key(q))
    removed_qs = [q for q in asked if _entry_key(q) in gone][:unanswerable]
    kept = [e for e in entries if e.key not in gone]
    passages, _ = faq_corpus(kept)
    kept_qs = [q for q in asked if _entry_key(q) not in gone]
    return passages, kept_qs[:answerable], removed_qs


def _entry_key(q: Question) -> str:
    """The FAQ entry a paraphrase asks for (its id is "<entry key>-<n>")."""
    return q.id.rsplit("-", 1)[0]


OUT_OF_SCOPE = [
    "who won the 1998 world cup",
    "write me a Python sort function",
    "what's the weather tomorrow",
    "tell me a joke",
    "誰贏了1998年世界盃",
]
CHIT_CHAT = ["hello", "thanks a lot!", "你好", "謝謝你", "good morning"]


if __name__ == "__main__":
    asyncio.run(main())
