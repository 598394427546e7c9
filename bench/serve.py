"""Serving benchmark: 200 turns from 20 concurrent conversations through the serving core.

Usage: .venv/bin/python -m bench.serve [--conversations 20] [--turns 10] [--passages 300]
       [--large-mb 2] [--modes nollm fakellm]
Each mode runs the workload twice on the same knowledge base (DRCD passages):
idle, then while a large upload is being ingested by the job worker in the same
process. Prints turn p50/p95 for each and the p95 ratio (target < 1.5), and
writes bench/results/serve.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
import uuid
from typing import Any

from sqlalchemy import text

from bench.answers import scripted_llm
from bench.common import CORPORA, fresh_database, load_squad, pct, print_table, write_json
from bench.retrieval import ingest_corpus
from bot.app.runtime import Runtime, open_runtime, warm_up
from bot.core.dispatcher import ServingCore
from bot.core.messages import Attachment, FinalAnswer, InboundMessage
from bot.settings import Settings
from storage.db import Database
from tests.support.fake_openai import FakeOpenAI


async def conversation(core: ServingCore, conv: str, questions: list[str]) -> list[float]:
    """One user's turns, each sent when the previous answer arrived; turn times in ms."""
    times = []
    for q in questions:
        inbound = InboundMessage("bench", uuid.uuid4().hex, conv, f"user-{conv}", q)
        start = time.perf_counter()
        answers = [e async for e in core.handle(inbound) if isinstance(e, FinalAnswer)]
        assert len(answers) == 1, "every turn gets exactly one answer"
        times.append((time.perf_counter() - start) * 1000)
    return times


async def workload(core: ServingCore, questions: list[str], convs: int, turns: int) -> list[float]:
    """All conversations at once; every turn's time."""
    rng = random.Random(7)
    plans = [[rng.choice(questions) for _ in range(turns)] for _ in range(convs)]
    tag = uuid.uuid4().hex[:6]
    results = await asyncio.gather(
        *(conversation(core, f"{tag}-{i}", plan) for i, plan in enumerate(plans))
    )
    return [t for times in results for t in times]


async def upload_status(db: Database) -> str | None:
    async with db.sessions() as session:
        return await session.scalar(text("SELECT status FROM uploads ORDER BY id DESC LIMIT 1"))


async def run_mode(rt: Runtime, mode: str, questions: list[str], large: bytes, args: Any) -> dict:
    """Idle, then while ingesting `large`: the turn times of each."""
    jobs = rt.job_queue()
    await jobs.open()
    core = rt.serving_core(jobs)
    await workload(core, questions, 4, 2)  # warm the pools and caches
    idle = await workload(core, questions, args.conversations, args.turns)
    worker = asyncio.create_task(jobs.run_worker(concurrency=1, grace_s=1))
    name = f"large-{mode}-{uuid.uuid4().hex[:6]}.txt"
    large = f"{name}\n\n".encode() + large  # new content each run: never "unchanged"
    admin = InboundMessage(
        "console",
        uuid.uuid4().hex,
        "admin",
        "admin",
        "",
        attachments=(Attachment(name, len(large), data=large),),
    )
    _ = [e async for e in core.handle(admin)]
    while await upload_status(rt.db) in (None, "queued"):
        await asyncio.sleep(0.1)
    started = time.perf_counter()
    busy = await workload(core, questions, args.conversations, args.turns)
    still_running = await upload_status(rt.db) == "running"
    busy_s = time.perf_counter() - started
    while await upload_status(rt.db) == "running":
        await asyncio.sleep(0.2)
    ingest_s = time.perf_counter() - started
    worker.cancel()
    await asyncio.gather(worker, return_exceptions=True)
    await jobs.close()
    return {
        "idle": idle,
        "ingesting": busy,
        "ingest_still_running_at_end": still_running,
        "workload_s": busy_s,
        "ingest_s_after_turns_started": ingest_s,
        "upload_status": await upload_status(rt.db),
    }


async def main(args: argparse.Namespace) -> None:
    passages, all_questions = load_squad(CORPORA["drcd (zh-hant)"])
    ids = sorted(passages)
    kb = {pid: passages[pid] for pid in ids[: args.passages]}
    questions = [q.text for q in all_questions if q.passage in kb]
    filler, size = [], 0
    for pid in ids[args.passages :]:  # the large upload: other passages, one document
        filler.append(passages[pid])
        size += len(passages[pid].encode())
        if size > args.large_mb * 1024 * 1024:
            break
    large = "\n\n".join(filler).encode()
    url, _server = fresh_database("bench_serve")
    fake = FakeOpenAI().start()
    fake.responder = scripted_llm
    report: dict[str, Any] = {"large_upload_mb": round(len(large) / 1024 / 1024, 2)}
    rows = []
    for mode in args.modes:
        llm_env = {"LLM_BASE_URL": fake.url, "LLM_MODEL": "fake", "LLM_API_KEY": "bench"}
        settings = Settings(
            _env_file=None,
            DATABASE_URL=url,
            RATE_LIMIT_PER_MINUTE=0,  # type: ignore[call-arg]
            **(llm_env if mode == "fakellm" else {}),
        )
        async with open_runtime(settings) as rt:
            if mode == args.modes[0]:
                await ingest_corpus(rt.db, kb, settings)
            await asyncio.to_thread(warm_up, rt)
            result = await run_mode(rt, mode, questions, large, args)
        idle, busy = result["idle"], result["ingesting"]
        ratio = pct(busy, 95) / pct(idle, 95)
        report[mode] = {**result, "ratio_p95": ratio}
        rows.append([mode, "idle", len(idle), pct(idle, 50), pct(idle, 95), ""])
        rows.append(
            [
                mode,
                "ingesting",
                len(busy),
                pct(busy, 50),
                pct(busy, 95),
                f"{ratio:.2f}"
                + ("" if result["ingest_still_running_at_end"] else " (ingest ended early)"),
            ]
        )
    fake.stop()
    print(
        f"large upload: {report['large_upload_mb']} MB; "
        f"{args.conversations} conversations x {args.turns} turns"
    )
    table = print_table(["mode", "condition", "turns", "p50 ms", "p95 ms", "p95 ratio"], rows)
    report["table"] = table
    print(f"wrote {write_json('serve', report)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--large-mb", type=float, default=2.0)
    parser.add_argument("--modes", nargs="+", default=["nollm", "fakellm"])
    asyncio.run(main(parser.parse_args()))
