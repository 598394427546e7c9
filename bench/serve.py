"""Serving benchmark: 200 turns from 20 concurrent conversations through the serving core,
and a crash-and-recover run of real `ragbot serve` processes.

Usage: .venv/bin/python -m bench.serve [--conversations 20] [--turns 10] [--passages 300]
       [--large-mb 2] [--modes nollm fakellm] [--ingest-processes 0 1]
Each mode runs the workload three times on the same knowledge base (DRCD
passages): idle, while a large upload is being ingested by the job worker of the
same process, and idle again (the two idle runs are the baseline), once per
INGEST_PROCESSES value (0: ingestion's CPU work in threads of
the serving process, as before 2026-11-25; 1: the default, one worker process).
Prints turn p50/p95 for each and the p95 ratio (target <= 1.2), and writes
bench/results/serve.json.

       .venv/bin/python -m bench.serve --crash [--questions 40] [--think 2] [--lease 30]
       [--kill-after 2]
Crash and recover: `ragbot serve` with Slack over HTTP (the fake Slack, the fake
model thinking `--think` seconds per answer) gets half the questions, each in
its own channel; `--kill-after` seconds later it is SIGKILLed, a second worker
is started and gets the other half (as Slack would retry them). The same run
without the kill is the baseline. Prints turns sent, answered, answered twice,
lost (must be 0) and the time from the kill until every question the dead
worker had accepted was answered; writes bench/results/serve_crash.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from slack_sdk.signature import SignatureVerifier
from sqlalchemy import text

from bench.answers import scripted_llm
from bench.common import (
    CORPORA,
    fresh_database,
    load_squad,
    pct,
    print_table,
    write_json,
)
from bench.searching import ingest_corpus
from bot.app.runtime import Runtime, open_runtime
from bot.app.warming import warm_up
from bot.core.delivery.inbox import LATE_AFTER_S
from bot.core.messages import Attachment, FinalAnswer, InboundMessage
from bot.core.serving import ServingCore
from bot.settings import Settings
from storage.db import Database
from tests.support import fake_slack
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.processes import launch
from tests.support.seen import slack_shown
from textkit.catalog import say


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
    await workload(core, questions, args.conversations, 2)  # warm the pools and caches
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
        upload_intent=True,  # "upload", as an admin says it in a direct message
        direct=True,
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
    # idle again once the upload is in: the baseline is both idle runs, so a slow
    # first run (cold caches) or a slow second one does not decide the ratio alone
    idle += await workload(core, questions, args.conversations, args.turns)
    worker.cancel()
    await asyncio.gather(worker, return_exceptions=True)
    await core.close()
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
    first = True
    for mode in args.modes:
        for processes in args.ingest_processes:
            llm_env: dict[str, Any] = {
                "LLM_BASE_URL": fake.url,
                "LLM_MODEL": "fake",
                "LLM_API_KEY": "bench",
            }
            settings = Settings(
                _env_file=None,
                DATABASE_URL=url,
                RATE_LIMIT_PER_MINUTE=0,  # type: ignore[call-arg]
                INGEST_PROCESSES=processes,
                **(llm_env if mode == "fakellm" else {}),
            )
            async with open_runtime(settings) as rt:
                if first:
                    await ingest_corpus(rt.db, kb, settings)
                    first = False
                await asyncio.to_thread(warm_up, rt)
                result = await run_mode(rt, mode, questions, large, args)
            idle, busy = result["idle"], result["ingesting"]
            ratio = pct(busy, 95) / pct(idle, 95)
            where = (
                f"{processes} process{'es' if processes != 1 else ''}" if processes else "threads"
            )
            report[f"{mode} / {where}"] = {**result, "ratio_p95": ratio}
            rows.append([mode, where, "idle", len(idle), pct(idle, 50), pct(idle, 95), ""])
            rows.append(
                [
                    mode,
                    where,
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
    table = print_table(
        ["mode", "ingestion runs in", "condition", "turns", "p50 ms", "p95 ms", "p95 ratio"], rows
    )
    report["table"] = table
    print(f"wrote {write_json('serve', report)}")


# --- crash and recover -----------------------------------------------------------------------

CRASH_DOC = (
    b"# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
    b"## Fees\n\nAn adult passport renewal costs 1,300 dollars and takes four working days.\n"
)
CRASH_PLAN = (
    '{"task_type": "simple_faq", "should_retrieve": true, "query": "passport renewal cost"}'
)
CRASH_ANSWER = "An adult passport renewal costs 1,300 dollars and takes four working days [1]."
CRASH_MARK = "four working days"  # in every complete answer, never in a placeholder
SIGNING_SECRET = "bench-secret"


def _slack_event(port: int, n: int, run: int) -> int:
    """Question `n` of `run`, a signed app_mention in channel C<n> (its own thread, ts
    `n.run`: both runs share one database, and its dedupe); the HTTP status."""
    event = {
        "type": "app_mention",
        "user": f"U{n}",
        "text": f"<@{fake_slack.BOT_USER}> How much does a passport renewal cost?",
        "ts": f"{n}.{run}",
        "channel": f"C{n:04d}",
    }
    envelope = {"type": "event_callback", "event_id": f"Ev{n}.{run}", "event": event}
    body = json.dumps(envelope).encode()
    stamp = str(int(time.time()))
    signature = str(
        SignatureVerifier(SIGNING_SECRET).generate_signature(timestamp=stamp, body=body)
    )
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature,
    }
    url = f"http://127.0.0.1:{port}/slack/events"
    return httpx.post(url, content=body, headers=headers, timeout=10).status_code


def _answers(fake: fake_slack.FakeSlack, n: int, run: int) -> list[str]:
    """The complete answers a user sees in question `n`'s thread."""
    shown = slack_shown(fake, f"C{n:04d}", f"{n}.{run}")
    return [text for text in shown.values() if CRASH_MARK in text]


def _post_all(port: int, numbers: range, posted: dict[int, float], run: int) -> None:
    for n in numbers:
        status = _slack_event(port, n, run)
        assert status == 200, f"question {n} refused ({status})"
        posted[n] = time.monotonic()


def crash_run(url: str, crash: bool, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """One run: half the questions to a worker, (a kill and a new worker), the other half."""
    slack = fake_slack.FakeSlack().start()
    model = FakeOpenAI()
    model.responder = lambda body: (
        Reply(CRASH_PLAN)
        if "planning step" in str(body["messages"][0]["content"])
        else Reply(CRASH_ANSWER, delay=args.think)
    )
    model.start()
    env = {
        "DATABASE_URL": url,
        "SLACK_BOT_TOKEN": fake_slack.TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_BASE_URL": slack.url,
        "LLM_BASE_URL": model.url,
        "LLM_MODEL": "fake-model",
        "LLM_API_KEY": "bench",
        "DELIVERY_LEASE_SECONDS": str(args.lease),
        "RATE_LIMIT_PER_MINUTE": "0",
        "MEMORY_ENABLED": "false",  # every question is a turn of the model, none a recall
        "LOG_LEVEL": "INFO",
    }
    name, run = ("crash", 2) if crash else ("baseline", 1)
    procs: list[subprocess.Popen[str]] = []
    posted: dict[int, float] = {}
    seen: dict[int, float] = {}  # question → when its first complete answer showed
    half = args.questions // 2
    killed_at: float | None = None
    stop_watching = threading.Event()

    def watch() -> None:
        while not stop_watching.is_set():
            for n in list(posted):
                if n not in seen and _answers(slack, n, run):
                    seen[n] = time.monotonic()
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    try:
        with (workdir / f"{name}-first.log").open("w") as log:
            first, port = launch("serve", workdir, env, log)
        procs.append(first)
        watcher.start()
        _post_all(port, range(half), posted, run)
        time.sleep(args.kill_after)  # turns in flight, more waiting for a turn slot
        if crash:
            first.send_signal(signal.SIGKILL)
            first.wait()
            killed_at = time.monotonic()
            answered_before = len(seen)
            with (workdir / f"{name}-second.log").open("w") as log:
                second, port = launch("serve", workdir, env, log)
            procs.append(second)
            started_s = time.monotonic() - killed_at
        _post_all(port, range(half, args.questions), posted, run)
        deadline = time.monotonic() + args.lease + 120
        while len(seen) < args.questions and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(args.lease / 3 + 3)  # a second answer, if any, would show by now
    finally:
        stop_watching.set()
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
        slack.stop()
        model.stop()
    counts = {n: len(_answers(slack, n, run)) for n in posted}
    texts = [t for n in posted for t in _answers(slack, n, run)]
    latencies = [seen[n] - posted[n] for n in seen]
    result: dict[str, Any] = {
        "sent": len(posted),
        "answered": sum(1 for c in counts.values() if c >= 1),
        "answered_twice": sum(1 for c in counts.values() if c >= 2),
        "lost": sum(1 for c in counts.values() if c == 0),
        "late_notes": sum(1 for t in texts if say("inbox:late", "en") in t),
        "latency_p50_s": pct(latencies, 50),
        "latency_p95_s": pct(latencies, 95),
        "latency_max_s": max(latencies, default=float("nan")),
    }
    if killed_at is not None:
        orphans = [n for n in range(half) if seen.get(n, float("inf")) > killed_at]
        done = [seen[n] for n in orphans if n in seen]
        result |= {
            "answered_before_kill": answered_before,
            "left_by_the_dead_worker": len(orphans),
            "second_worker_up_s": started_s,
            "recover_s": (max(done) - killed_at) if len(done) == len(orphans) else None,
        }
    return result


def crash_main(args: argparse.Namespace) -> None:
    """The crash-and-recover run and its baseline, on one fresh database."""
    url, _server = fresh_database("bench_serve_crash")

    async def ingest() -> None:
        async with open_runtime(Settings(_env_file=None, DATABASE_URL=url)) as rt:  # type: ignore[call-arg]
            await rt.ingestion.ingest_bytes("passport.md", CRASH_DOC)

    asyncio.run(ingest())
    report: dict[str, Any] = {
        "questions": args.questions,
        "think_s": args.think,
        "lease_s": args.lease,
        "kill_after_s": args.kill_after,
        "late_after_s": LATE_AFTER_S,
    }
    workdir = Path(tempfile.mkdtemp(prefix="bench-crash-"))  # the workers' logs stay there
    for crash in (False, True):
        report["crash" if crash else "baseline"] = crash_run(url, crash, args, workdir)
    rows = []
    for key in ("baseline", "crash"):
        r = report[key]
        recover = r.get("recover_s")
        rows.append(
            [
                key,
                r["sent"],
                r["answered"],
                r["answered_twice"],
                r["lost"],
                r["late_notes"],
                f"{r['latency_p50_s']:.1f} / {r['latency_p95_s']:.1f} / {r['latency_max_s']:.1f}",
                "—" if key == "baseline" else ("never" if recover is None else f"{recover:.1f}"),
            ]
        )
    print(
        f"{args.questions} questions, model thinking {args.think} s, lease {args.lease} s,"
        f" kill {args.kill_after} s after the first half"
    )
    headers = ["run", "turns sent", "answered", "answered twice", "lost", "late notes"]
    headers += ["answer after s (p50 / p95 / max)", "recover s"]
    report["table"] = print_table(headers, rows)
    if "second_worker_up_s" in report["crash"]:
        c = report["crash"]
        print(
            f"dead worker left {c['left_by_the_dead_worker']} questions"
            f" ({c['answered_before_kill']} answered before the kill);"
            f" second worker healthy {c['second_worker_up_s']:.1f} s after the kill"
        )
    print(f"worker logs: {workdir}")
    print(f"wrote {write_json('serve_crash', report)}")
    assert report["crash"]["lost"] == 0, "a question was lost"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--large-mb", type=float, default=2.0)
    parser.add_argument("--modes", nargs="+", default=["nollm", "fakellm"])
    parser.add_argument(
        "--ingest-processes",
        type=int,
        nargs="+",
        default=[0, 1],
        help="INGEST_PROCESSES of each run (0: threads of the serving process, the baseline)",
    )
    parser.add_argument("--crash", action="store_true", help="the crash-and-recover run only")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--think", type=float, default=2.0, help="the model's seconds per answer")
    parser.add_argument("--lease", type=float, default=30.0, help="DELIVERY_LEASE_SECONDS")
    parser.add_argument("--kill-after", type=float, default=2.0)
    parsed = parser.parse_args()
    if parsed.crash:
        crash_main(parsed)
    else:
        asyncio.run(main(parsed))
