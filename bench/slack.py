"""Slack benchmark: signed events against `ragbot serve` with the fake Slack API and fake LLM.

Usage: .venv/bin/python -m bench.slack [--users 20] [--events 10] [--redeliver 20] [--passages 300]
       [--baseline ROOT]
20 users each @-mention the bot 10 times (a new thread each, the next one after
the answer arrived); 20 of the 200 events are delivered a second time (same
event id, X-Slack-Retry-Num) right after the first ack. Prints ack p50/p95,
time to the first visible update p50/p95 and answers per event; writes
bench/results/slack.json. With `--baseline ROOT`, another checkout's `ragbot serve`
(PYTHONPATH=ROOT) runs first, against the same database, in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from typing import Any

import httpx
from slack_sdk.signature import SignatureVerifier

from bench.answers import scripted_llm
from bench.common import pct, print_table, write_json
from bench.serving import (
    add_baseline_argument,
    baseline_code,
    drcd_knowledge_base,
    free_port,
    start_serve,
    stop_serve,
    wait_healthy,
)
from tests.support.fake_openai import FakeOpenAI
from tests.support.fake_slack import BOT_USER, TOKEN, FakeSlack

SECRET = "bench-signing-secret"


def signed(body: bytes) -> dict[str, str]:
    stamp = str(int(time.time()))
    signature = SignatureVerifier(SECRET).generate_signature(timestamp=stamp, body=body)
    assert signature is not None  # None only without a timestamp
    return {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature,
    }


class Watch:
    """What the fake Slack has seen per thread, read incrementally.

    Each user polls it while waiting for an answer; rescanning every call on
    every poll would spend the benchmark's own CPU on the cores it measures.
    """

    def __init__(self, fake: FakeSlack) -> None:
        self._fake = fake
        self._seen = 0
        # keyed as the fake saw them: a call or reply without a ts or thread_ts counts under None
        self._thread_of: dict[str | None, str | None] = {}  # message ts → thread ts
        self.finals: Counter[str | None] = Counter()  # thread → final answers posted
        self.first: dict[str | None, float] = {}  # thread → first visible update (monotonic)

    def update(self) -> None:
        fake = self._fake
        upto = len(fake.times)  # appended last under the fake's lock: the others are there
        for i in range(self._seen, upto):
            (method, params), (_, reply), at = fake.calls[i], fake.responses[i], fake.times[i]
            if method in ("chat.startStream", "chat.postMessage"):
                thread = params.get("thread_ts")
                self._thread_of[reply.get("ts")] = thread
                self.first.setdefault(thread, at)
            if method in ("chat.update", "chat.postMessage") and "ragbot_feedback" in json.dumps(
                params.get("blocks") or []
            ):
                thread = params.get("thread_ts") or self._thread_of.get(params.get("ts"))
                self.finals[thread] += 1
        self._seen = upto


async def user(
    client: httpx.AsyncClient,
    watch: Watch,
    n: int,
    questions: list[str],
    redeliver: set[str],
    out: dict[str, Any],
) -> None:
    first = out["first_user"]  # each run its own users, channels and events
    for k, question in enumerate(questions):
        ts = f"{1800000000 + first + n}.{k:06d}"
        event_id = f"Ev{first + n}x{k}"
        event = {
            "type": "app_mention",
            "user": f"U{first + n}",
            "text": f"<@{BOT_USER}> {question}",
            "ts": ts,
            "channel": f"C{first + n}",
            "event_ts": ts,
        }
        body = json.dumps(
            {"type": "event_callback", "team_id": "T1", "event_id": event_id, "event": event}
        ).encode()
        sent = time.monotonic()
        response = await client.post("/slack/events", content=body, headers=signed(body))
        out["acks"].append((time.monotonic() - sent) * 1000)
        assert response.status_code == 200, response.text
        if f"Ev{n}x{k}" in redeliver:
            retry = {
                **signed(body),
                "X-Slack-Retry-Num": "1",
                "X-Slack-Retry-Reason": "http_timeout",
            }
            await client.post("/slack/events", content=body, headers=retry)
        deadline = time.monotonic() + 60
        while not watch.finals[ts] and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
            watch.update()
        seen = watch.first.get(ts)
        out["first_visible"].append((seen - sent) * 1000 if seen else float("nan"))
        out["threads"].append(ts)


async def run_once(
    url: str, questions: list[str], args: argparse.Namespace, code: dict[str, str], first: int
) -> dict[str, Any]:
    """One `ragbot serve` (`code`: PYTHONPATH of another checkout, or nothing) under the load."""
    fake, llm = FakeSlack().start(), FakeOpenAI().start()
    llm.responder = scripted_llm
    port = free_port()
    serve = start_serve(
        port,
        url,
        llm.url,
        SLACK_BOT_TOKEN=TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_BASE_URL=fake.url,
        # a second run asks the same questions of one database: with the answer memory on,
        # it would be served from what the first remembered (no model, no search)
        MEMORY_ENABLED="false",
        **code,
    )
    out: dict[str, Any] = {"acks": [], "first_visible": [], "threads": [], "first_user": first}
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            await wait_healthy(client)
            every = max(1, args.users * args.events // max(args.redeliver, 1))
            redeliver = {
                f"Ev{n}x{k}"
                for n in range(args.users)
                for k in range(args.events)
                if (n * args.events + k) % every == 0
            }
            plans = [
                [questions[(n * args.events + k) % len(questions)] for k in range(args.events)]
                for n in range(args.users)
            ]
            live = Watch(fake)
            await asyncio.gather(
                *(user(client, live, n, plans[n], redeliver, out) for n in range(args.users))
            )
            await asyncio.sleep(2)  # late duplicates would show up here
    finally:
        watch = Watch(fake)  # a fresh full read for the final count
        stop_serve(serve)
        fake.stop()
        llm.stop()
    watch.update()
    out["answers_per_event"] = [watch.finals[t] for t in out["threads"]]
    out["redelivered"] = len(redeliver)
    return out


async def main(args: argparse.Namespace) -> None:
    url, questions = await drcd_knowledge_base("bench_slack", args.passages)
    runs: list[tuple[str, dict[str, str]]] = [("this checkout", {})]
    if args.baseline:  # another checkout's code, first, in the same run
        runs.insert(0, ("baseline", baseline_code(args.baseline)))
    results, rows = {}, []
    for n, (label, code) in enumerate(runs):
        out = results[label] = await run_once(url, questions, args, code, 1000 * n)
        answers = out["answers_per_event"]
        rows.append(
            [
                label,
                len(out["acks"]),
                out["redelivered"],
                pct(out["acks"], 50),
                pct(out["acks"], 95),
                pct(out["first_visible"], 50),
                pct(out["first_visible"], 95),
                min(answers),
                max(answers),
            ]
        )
    table = print_table(
        [
            "code",
            "events",
            "redelivered",
            "ack p50 ms",
            "ack p95 ms",
            "first visible p50 ms",
            "first visible p95 ms",
            "answers/event min",
            "answers/event max",
        ],
        rows,
    )
    print(f"wrote {write_json('slack', {'table': table, **results})}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--events", type=int, default=10)
    parser.add_argument("--redeliver", type=int, default=20)
    parser.add_argument("--passages", type=int, default=300)
    add_baseline_argument(parser)
    asyncio.run(main(parser.parse_args()))
