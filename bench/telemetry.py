"""Telemetry benchmark: what a Langfuse trace per turn costs, and what a broken Langfuse costs.

Usage: .venv/bin/python -m bench.telemetry [--turns 60] [--concurrency 4] [--passages 300]
The whole graph in-process on DRCD passages with the fake LLM (plan + streamed
answer: 2 calls per turn, answered at once). Modes, in one run, same questions:
off (no keys: the baseline), on (the real SDK exporting to a local capture
server), down (the server answers 500), hung (the server never answers).
Prints a Markdown table and writes bench/results/telemetry.json.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from typing import Any

from bench.answers import scripted_llm, service_for
from bench.common import connect, mean, pct, print_table, write_json
from bench.serving import drcd_knowledge_base
from bot.settings import Settings
from bot.telemetry import Pseudonyms, Telemetry
from graph.models import build_chat_model
from tests.support.fake_langfuse import FakeLangfuse
from tests.support.fake_openai import FakeOpenAI

MODES = ("off", "on", "down", "hung")


async def run_mode(
    mode: str, url: str, questions: list[str], llm_url: str, concurrency: int
) -> dict[str, Any]:
    capture = FakeLangfuse(mode={"on": "ok", "down": "fail", "hung": "hang"}.get(mode, "ok"))
    capture.start()
    telemetry = None
    if mode != "off":
        telemetry = Telemetry.connect(
            Pseudonyms("bench"), f"pk-lf-bench-{uuid.uuid4().hex}", "sk-bench", capture.url
        )
    db = connect(url)
    llm = build_chat_model(llm_url, "bench", "fake", timeout=10)
    service = service_for(db, Settings(_env_file=None), llm, telemetry)  # type: ignore[call-arg]
    await service.ask("暖機")  # jieba, the embedder and the HTTP pools warm
    gate = asyncio.Semaphore(concurrency)
    walls: list[float] = []

    async def one(i: int, question: str) -> None:
        async with gate:
            t0 = time.perf_counter()
            await service.ask(
                question, conversation=f"{mode}-{i}", platform="telegram", user=str(i)
            )
            walls.append((time.perf_counter() - t0) * 1000)

    cpu0, t0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one(i, q) for i, q in enumerate(questions)))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    exit_s = 0.0
    if telemetry is not None:  # what a stopping process waits for the last traces
        f0 = time.perf_counter()
        await asyncio.to_thread(telemetry.shutdown)
        exit_s = time.perf_counter() - f0
    capture.stop()
    await db.dispose()
    return {
        "mode": mode,
        "turns": len(questions),
        "p50_ms": pct(walls, 50),
        "p95_ms": pct(walls, 95),
        "mean_ms": mean(walls),
        "cpu_ms_per_turn": cpu * 1000 / len(questions),
        "turns_per_s": len(questions) / elapsed,
        "spans_per_turn": len(capture.spans) / len(questions),
        "exit_wait_s": exit_s,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--passages", type=int, default=300)
    args = parser.parse_args()
    url, questions = await drcd_knowledge_base("bench_telemetry", args.passages)
    llm = FakeOpenAI(responder=scripted_llm).start()
    results = []
    try:
        for mode in MODES:
            results.append(
                await run_mode(mode, url, questions[: args.turns], llm.url, args.concurrency)
            )
    finally:
        llm.stop()
    base = results[0]
    headers = [
        "mode", "turns", "p50 ms", "p95 ms", "Δ p50 vs off", "CPU ms/turn",
        "turns/s", "spans/turn", "exit wait s",
    ]  # fmt: skip
    rows = [
        [
            r["mode"],
            r["turns"],
            f"{r['p50_ms']:.0f}",
            f"{r['p95_ms']:.0f}",
            f"{r['p50_ms'] - base['p50_ms']:+.0f}",
            f"{r['cpu_ms_per_turn']:.1f}",
            f"{r['turns_per_s']:.1f}",
            f"{r['spans_per_turn']:.1f}",
            f"{r['exit_wait_s']:.2f}",
        ]
        for r in results
    ]
    print_table(headers, rows)
    path = write_json("telemetry", {"args": vars(args), "results": results})
    print(f"\nwrote {path}")


if __name__ == "__main__":
    asyncio.run(main())
