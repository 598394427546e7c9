"""HTTP API benchmark: streamed and whole answers from `ragbot serve`'s `/api/v1/ask*`.

Usage: .venv/bin/python -m bench.api [--questions 100] [--clients 20] [--answer-seconds 1.0]
       [--passages 300] [--warmup 20] [--modes llm nollm] [--passes stream ask]
A DRCD knowledge base (real Traditional Chinese questions whose answers are in
the documents), one API key (`ragbot apikey create`, a rate no run reaches) and
a real `ragbot serve` per mode. `--questions` questions (fixed seed), `--clients`
clients at once (workers pulling from one queue, one HTTP connection each):
first through `POST /api/v1/ask/stream` (time to the first server-sent event of
any kind, to the first event past the line of waiting turns, to the first
`chunk`, to `done`; exactly one `done` each), then, the baseline measured in the
same run, the same questions through `POST /api/v1/ask` (time to the whole JSON
answer). Modes: `llm`, the fake model (plans with `scripted_llm`, then streams
an answer quoting source [1]'s first three sentences over `--answer-seconds`),
and `nollm`, a second serve without LLM_BASE_URL (the extractive answer). The
answer memory is off (the second pass would otherwise be recalls);
MAX_CONCURRENT_TURNS is left at its default, so clients beyond it wait in the
line (their first event says `queued`). `--warmup` other questions go first,
unmeasured (the first pass of a fresh serve is otherwise the slower one).
Prints a table and where a turn's time goes (server step p50s); writes
bench/results/api.json with every question's record.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import subprocess
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from bench.answers import scripted_llm
from bench.common import pct, print_table, write_json
from bench.serving import (
    RAGBOT,
    drcd_knowledge_base,
    free_port,
    start_serve,
    stop_serve,
    wait_healthy,
)
from bot.settings import Settings
from tests.support.fake_openai import FakeOpenAI, Reply
from textkit.sentences import split_sentences

NO_LIMIT = "100000"  # calls a minute: no run comes near it
# the serve's settings in both modes: every question a turn (no recall), no rate limit
SERVE_SETTINGS = {"MEMORY_ENABLED": "false", "API_RATE_LIMIT_PER_MINUTE": NO_LIMIT}
ENDPOINTS = {"stream": "/ask/stream", "ask": "/ask (baseline)"}
PIECE = 8  # characters per streamed piece of the fake model (tests.support.fake_openai)


def source_sentences(body: dict[str, Any], most: int) -> list[str]:
    """Up to `most` sentences of source [1] in a synthesis request (as first_source_sentence)."""
    user = str(body["messages"][-1]["content"])
    if "\n[1] " not in user:
        return []
    first = user.split("\n[1] ", 1)[-1].split("\n\n", 1)[0]
    return split_sentences(first.split(") ", 1)[-1])[:most]


def paced_llm(seconds: float, paces: list[float]) -> Callable[[dict[str, Any]], Reply]:
    """scripted_llm, with the streamed answer quoting source [1]'s first three sentences
    (each cited) written evenly over `seconds`; each reply's pace is kept in `paces`."""

    def respond(body: dict[str, Any]) -> Reply:
        reply = scripted_llm(body)
        if not body.get("stream"):
            return reply
        sentences = source_sentences(body, 3)
        if not sentences:
            return reply
        answer = " ".join(f"{s} [1]" for s in sentences)
        content = json.dumps(
            {"answerable": True, "answer": answer, "citations": [1]}, ensure_ascii=False
        )
        pace = seconds / max(1, math.ceil(len(content) / PIECE))
        paces.append(pace)
        return Reply(content, pace=pace)

    return respond


def create_key(database_url: str) -> str:
    """A key reading `public` at a rate no run reaches, made as an operator would."""
    env = {**os.environ, "DATABASE_URL": database_url, "LOG_LEVEL": "ERROR"}
    made = subprocess.run(
        [
            RAGBOT,
            "apikey",
            "create",
            "--name",
            "bench",
            "--collections",
            "public",
            "--rate",
            NO_LIMIT,
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return made.stdout.strip().splitlines()[0]


async def streamed(client: httpx.AsyncClient, question: str) -> dict[str, Any]:
    """One question through /api/v1/ask/stream: its events' times (ms) and what came."""
    out: dict[str, Any] = {"question": question, "status": None, "dones": 0, "errors": []}
    started = time.perf_counter()

    def since() -> float:
        return (time.perf_counter() - started) * 1000

    body = {"question": question, "language": "zh-hant"}
    try:
        async with client.stream("POST", "/api/v1/ask/stream", json=body) as response:
            out["status"] = response.status_code
            if response.status_code != 200:
                out["errors"].append((await response.aread()).decode()[:300])
                return out
            kinds: Counter[str] = Counter()
            kind = None
            async for line in response.aiter_lines():
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                    kinds[kind] += 1
                    out.setdefault("first_event_ms", since())
                    out.setdefault("first_kind", kind)
                elif line.startswith("data: ") and kind is not None:
                    data = json.loads(line.removeprefix("data: "))
                    if "first_step" not in out:
                        out["first_step"] = data.get("step", kind)
                    if kind != "reasoning" or data.get("step") != "queued":
                        out.setdefault("started_ms", since())  # out of the line: a turn slot
                    if kind == "chunk" and data.get("text"):
                        out.setdefault("first_chunk_ms", since())
                    elif kind == "done":
                        out["dones"] += 1
                        out["done_ms"] = since()
                        out["outcome"] = data.get("outcome")
                        out["llm_calls"] = data.get("llm_calls")
                        out["decision_path"] = data.get("decision_path")
                        out["timings_ms"] = data.get("timings_ms", {})
                        out["answer_chars"] = len(data.get("answer", ""))
                    elif kind == "error":
                        out["errors"].append(data)
            out["events"] = dict(kinds)
    except httpx.HTTPError as exc:
        out["errors"].append(f"{type(exc).__name__}: {exc}")
    return out


async def whole(client: httpx.AsyncClient, question: str) -> dict[str, Any]:
    """One question through /api/v1/ask: the time (ms) to the whole JSON answer."""
    out: dict[str, Any] = {"question": question, "status": None, "dones": 0, "errors": []}
    started = time.perf_counter()
    try:
        response = await client.post(
            "/api/v1/ask", json={"question": question, "language": "zh-hant"}
        )
        out["status"] = response.status_code
        if response.status_code == 200:
            data = response.json()
            out["done_ms"] = (time.perf_counter() - started) * 1000
            out["dones"] = 1
            out["outcome"] = data.get("outcome")
            out["llm_calls"] = data.get("llm_calls")
            out["decision_path"] = data.get("decision_path")
            out["timings_ms"] = data.get("timings_ms", {})
            out["answer_chars"] = len(data.get("answer", ""))
        else:
            out["errors"].append(response.text[:300])
    except httpx.HTTPError as exc:
        out["errors"].append(f"{type(exc).__name__}: {exc}")
    return out


async def clients(
    client: httpx.AsyncClient,
    questions: list[str],
    count: int,
    one: Callable[[httpx.AsyncClient, str], Awaitable[dict[str, Any]]],
) -> tuple[list[dict[str, Any]], float]:
    """`count` clients pulling questions from one queue; every record and the wall time (s)."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    for question in questions:
        queue.put_nowait(question)
    records: list[dict[str, Any]] = []

    async def worker() -> None:
        while not queue.empty():
            sent = time.perf_counter() - started
            records.append({**await one(client, queue.get_nowait()), "sent_s": sent})

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(count)))
    return records, time.perf_counter() - started


def summary(records: list[dict[str, Any]], wall_s: float) -> dict[str, Any]:
    """Percentiles and counts of one pass."""

    def times(key: str) -> list[float]:
        return [r[key] for r in records if key in r]

    out: dict[str, Any] = {
        "questions": len(records),
        "wall_s": wall_s,
        "status_200": sum(r["status"] == 200 for r in records),
        "non_200": sum(r["status"] != 200 for r in records),
        "with_errors": sum(bool(r["errors"]) for r in records),
        "exactly_one_done": sum(r["dones"] == 1 for r in records),
        "outcomes": dict(Counter(str(r.get("outcome")) for r in records)),
        "llm_calls": dict(Counter(str(r.get("llm_calls")) for r in records)),
        "first_steps": dict(
            Counter(str(r.get("first_step")) for r in records if "first_step" in r)
        ),
    }
    for key in ("first_event_ms", "started_ms", "first_chunk_ms", "done_ms"):
        values = times(key)
        out[key] = {"n": len(values), "p50": pct(values, 50), "p95": pct(values, 95)}
    steps = Counter(k for r in records for k in r.get("timings_ms", {}))
    out["timings_p50_ms"] = {
        step: pct([r["timings_ms"][step] for r in records if step in r.get("timings_ms", {})], 50)
        for step in sorted(steps)
    }
    return out


async def run_mode(
    url: str, key: str, llm: bool, args: argparse.Namespace, questions: list[str], warm: list[str]
) -> dict[str, Any]:
    """One `ragbot serve`: warm-up, the streamed pass, then the whole-answer pass."""
    paces: list[float] = []
    fake = FakeOpenAI().start() if llm else None
    if fake is not None:
        fake.responder = paced_llm(args.answer_seconds, paces)
    port = free_port()
    serve = start_serve(port, url, fake.url if fake else "", **SERVE_SETTINGS)
    limits = httpx.Limits(max_connections=args.clients, max_keepalive_connections=args.clients)
    results: dict[str, Any] = {}
    try:
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            limits=limits,
            timeout=120,
        ) as client:
            await wait_healthy(client)
            if warm:  # unmeasured: both endpoints, every turn slot and pooled connection
                await clients(client, warm[::2], args.clients, streamed)
                await clients(client, warm[1::2], args.clients, whole)
            for name in args.passes:
                one = streamed if name == "stream" else whole
                records, wall = await clients(client, questions, args.clients, one)
                results[name] = {**summary(records, wall), "records": records}
    finally:
        stop_serve(serve)
        if fake is not None:
            fake.stop()
    if paces:
        results["model_pace_s"] = {
            "min": min(paces),
            "max": max(paces),
            "mean": sum(paces) / len(paces),
        }
    return results


def ms(figures: dict[str, Any], q: str) -> Any:
    value = figures[q]
    return round(value, 1) if figures["n"] and not math.isnan(value) else "—"


def step_ms(p50s: dict[str, float], step: str) -> Any:
    value = p50s.get(step, math.nan)
    return "—" if math.isnan(value) else round(value, 1)


async def main(args: argparse.Namespace) -> None:
    load_start = os.getloadavg()
    began = time.perf_counter()
    url, all_questions = await drcd_knowledge_base("bench_api", args.passages)
    picked = random.Random(20260301).sample(all_questions, args.questions + args.warmup)
    questions, warm = picked[: args.questions], picked[args.questions :]
    key = create_key(url)
    runs: dict[str, Any] = {}
    rows = []
    labels = {"llm": "fake model", "nollm": "no LLM"}
    for mode in args.modes:
        measured = time.perf_counter()
        runs[mode] = await run_mode(url, key, mode == "llm", args, questions, warm)
        print(f"{labels[mode]}: {time.perf_counter() - measured:.0f} s", flush=True)
        for name in args.passes:
            endpoint = ENDPOINTS[name]
            s = runs[mode][name]
            rows.append(
                [
                    f"{labels[mode]}, {endpoint}",
                    s["questions"],
                    s["non_200"],
                    s["with_errors"],
                    s["exactly_one_done"],
                    ms(s["first_event_ms"], "p50"),
                    ms(s["first_event_ms"], "p95"),
                    ms(s["first_chunk_ms"], "p50"),
                    ms(s["first_chunk_ms"], "p95"),
                    ms(s["done_ms"], "p50"),
                    ms(s["done_ms"], "p95"),
                    round(s["questions"] / s["wall_s"], 2),
                ]
            )
    table = print_table(
        [
            "run",
            "questions",
            "non-200",
            "errors",
            "exactly one done",
            "first event p50 ms",
            "first event p95 ms",
            "first chunk p50 ms",
            "first chunk p95 ms",
            "whole answer p50 ms",
            "whole answer p95 ms",
            "answers/s",
        ],
        rows,
    )
    # the steps that take time (p50 of at least 0.1 ms in some pass)
    steps = sorted(
        {
            step
            for r in runs.values()
            for p in args.passes
            for step, value in r[p]["timings_p50_ms"].items()
            if value >= 0.1
        }
    )
    where = print_table(
        ["server step p50 ms", *(f"{labels[m]}, {p}" for m in runs for p in args.passes)],
        [
            [
                step,
                *(step_ms(runs[m][p]["timings_p50_ms"], step) for m in runs for p in args.passes),
            ]
            for step in steps
        ],
    )
    for mode, r in runs.items():
        for name in args.passes:
            s = r[name]
            said = f"{labels[mode]}, {ENDPOINTS[name]}: outcomes {s['outcomes']}"
            if name == "stream":  # the first event is `queued` while the turn waits for a slot
                said += (
                    f"; first events {s['first_steps']}; turn started (first event past"
                    f" the line) p50 {ms(s['started_ms'], 'p50')} ms,"
                    f" p95 {ms(s['started_ms'], 'p95')} ms"
                )
            print(said)
    settings = Settings()
    payload = {
        "table": table,
        "where_time_goes": where,
        "settings": {
            "questions": args.questions,
            "clients": args.clients,
            "warmup": args.warmup,
            "passages": args.passages,
            "answer_seconds": args.answer_seconds,
            "model_piece_chars": PIECE,
            "max_concurrent_turns": settings.max_concurrent_turns,
            "serve": SERVE_SETTINGS,
        },
        "machine": {
            "cpu_count": os.cpu_count(),
            "loadavg_start": load_start,
            "loadavg_end": os.getloadavg(),
        },
        "elapsed_s": time.perf_counter() - began,
        **runs,
    }
    print(f"wrote {write_json('api', payload)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--answer-seconds", type=float, default=1.0)
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--passes", nargs="*", default=["stream", "ask"], choices=["stream", "ask"])
    parser.add_argument("--modes", nargs="*", default=["llm", "nollm"], choices=["llm", "nollm"])
    asyncio.run(main(parser.parse_args()))
