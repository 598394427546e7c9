"""Telegram benchmark: updates posted to `ragbot serve`'s webhook, fake Bot API and fake LLM.

Usage: .venv/bin/python -m bench.telegram [--chats 20] [--updates 10] [--duplicates 20]
       [--bursts 1] [--baseline ROOT]
20 private chats each send 10 questions (the next after the answer arrived);
20 of the 200 updates are posted a second time right after the first. The
fake model streams its answer over about a second, so answers are previewed.
Run twice in one go: drafts (TELEGRAM_DRAFTS=true, the default) and edits of a
sent message (TELEGRAM_DRAFTS=false); with `--baseline ROOT`, another checkout's
`ragbot serve` (PYTHONPATH=ROOT) runs both first, in the same run. All with the answer
memory off (the second run would otherwise be answered from the first's). Prints time to the
typing indicator and to the first visible answer text p50/p95, previews
(drafts + edits) per answer, the most previews any chat got in one second,
and answers per update; writes bench/results/telegram.json. `--bursts N`
repeats the run with new chats N times in one `ragbot serve` (the next once the
last chat is answered): with `--updates 1`, N opening bursts of 20 first
questions, to compare two codes' burst on more than 20 samples.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import time
from collections import Counter, defaultdict
from typing import Any

import httpx
from sqlalchemy import text

from bench.answers import scripted_llm
from bench.common import connect, pct, print_table, write_json
from bench.serving import (
    add_baseline_argument,
    baseline_code,
    children_cpu_seconds,
    cpu_seconds,
    drcd_knowledge_base,
    free_port,
    harness_cpu_seconds,
    machine_busy_seconds,
    postgres_cpu_seconds,
    start_serve,
    stop_serve,
    wait_healthy,
)
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fake_telegram import TOKEN, FakeTelegram, private_text

SECRET = "bench-webhook-secret"
# the turn's own timings (stored with each answer), in the order a turn meets them
STAGES = (
    ("taken", "turn: message taken → turn starts (claim, conversation lock, slot)"),
    ("slot", "  of which waiting for the conversation lock and a turn slot"),
    ("history", "turn: conversation and history loaded"),
    ("guard", "step guard"),
    ("planner", "step planner (the model's plan)"),
    ("tool_executor", "step tool_executor (search)"),
    ("lane", "waiting for the CPU lane (guard, search; summed over the turn)"),
    ("first_token", "turn: graph start → first checked sentence (first token shown)"),
    ("response_synth", "step response_synth (the whole answer written)"),
    ("total", "turn total (graph)"),
)
PREVIEWS = {"sendMessageDraft", "editMessageText"}
# where the two cores went while the chats asked (CPU ms per update)
CPU_COLUMNS = {
    "serve_cpu_ms_per_update": "serve CPU ms/update",
    "workers_cpu_ms_per_update": "turn workers CPU ms/update",
    "postgres_cpu_ms_per_update": "Postgres CPU ms/update",
    "harness_cpu_ms_per_update": "bench client + fakes CPU ms/update",
    "machine_busy_ms_per_update": "machine busy ms/update (all cores)",
}


PIECE, PACE = 8, 0.06  # the fake model writes 8 characters every 60 ms


def slow_llm(body: dict[str, Any]) -> Reply:
    """scripted_llm, with the answer written over about a second."""
    reply = scripted_llm(body)
    if body.get("stream"):
        return Reply(reply.content + " " + "The documents say so. " * 4, pace=PACE)
    return reply


def model_floor_ms(content: str) -> float:
    """How long the fake model takes to write the answer field's closing quote: no turn can
    show its (one-sentence) answer before that, however fast everything else is."""
    end = content.find('", "citations"')
    if end < 0:
        return float("nan")
    return ((end + 1 + PIECE - 1) // PIECE - 1) * PACE * 1000


def is_final(params: dict[str, Any]) -> bool:
    return '"fb:' in json.dumps(params.get("reply_markup") or {})


class ChatLog:
    """The fake's calls per chat, read once at the end."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.calls: dict[int, list[tuple[float, str, dict[str, Any]]]] = defaultdict(list)
        for (method, params), at in zip(fake.calls, fake.times, strict=True):
            if "chat_id" in params:
                self.calls[int(params["chat_id"])].append((at, method, params))


async def post_webhook(
    client: httpx.AsyncClient, update: dict[str, Any], headers: dict[str, str]
) -> httpx.Response:
    """POST an update; once more on a dropped connection, as Telegram redelivers (a pooled
    keep-alive connection the server closed while the chat waited for its answer)."""
    try:
        return await client.post("/telegram/webhook", json=update, headers=headers)
    except (httpx.ReadError, httpx.RemoteProtocolError, httpx.ConnectError):
        return await client.post("/telegram/webhook", json=update, headers=headers)


async def chat(
    client: httpx.AsyncClient,
    finals: Counter[int],
    n: int,
    plan: list[str],
    dup: set[int],
    out: dict[str, Any],
) -> None:
    """One citizen: a question, wait for the answer, the next question."""
    chat_id = out["first_chat"] + n  # each run its own chats: deliveries are per chat and message
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    for k, question in enumerate(plan):
        update_id = n * 1000 + k
        update = private_text(update_id, chat_id, question, language="zh-hant")
        sent = time.monotonic()
        response = await post_webhook(client, update, headers)
        assert response.status_code == 200, response.text
        if update_id in dup:
            await post_webhook(client, update, headers)
        out["posted"].append((chat_id, sent))
        deadline = time.monotonic() + 60
        while finals[chat_id] <= k and time.monotonic() < deadline:
            await asyncio.sleep(0.02)


def measure(fake: FakeTelegram, posted: list[tuple[int, float]]) -> dict[str, Any]:
    log = ChatLog(fake)
    by_chat: dict[int, list[float]] = defaultdict(list)
    for chat_id, at in posted:
        by_chat[chat_id].append(at)
    typing, visible, working, previews, per_update, busiest = [], [], [], [], [], 0
    # first text of each chat's first question (all chats at once), rest
    opening: list[float] = []
    later: list[float] = []
    for chat_id, starts in by_chat.items():
        starts.sort()
        calls = log.calls[chat_id]
        times = [t for t, _, _ in calls]
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else float("inf")
            window = calls[bisect.bisect_left(times, start) : bisect.bisect_left(times, end)]
            first_typing = next((t for t, m, _ in window if m == "sendChatAction"), None)
            first_text = next(
                (t for t, m, p in window if m in PREVIEWS | {"sendMessage"} and p.get("text")), None
            )
            typing.append((first_typing - start) * 1000 if first_typing else float("nan"))
            visible.append((first_text - start) * 1000 if first_text else float("nan"))
            (opening if i == 0 else later).append(visible[-1])
            working.append(
                (first_text - first_typing) * 1000 if first_text and first_typing else float("nan")
            )
            previews.append(sum(1 for _, m, _ in window if m in PREVIEWS))
            per_update.append(
                sum(
                    1
                    for _, m, p in window
                    if m in ("sendMessage", "editMessageText") and is_final(p)
                )
            )
        stamps = [t for t, m, _ in calls if m in PREVIEWS]
        for i, t in enumerate(stamps):  # previews in any one-second window
            busiest = max(busiest, bisect.bisect_left(stamps, t + 1.0) - i)
    return {
        "typing_ms": typing,
        "first_visible_ms": visible,
        "first_visible_opening_ms": opening,
        "first_visible_later_ms": later,
        "typing_to_first_text_ms": working,
        "previews_per_answer": previews,
        "answers_per_update": per_update,
        "max_previews_in_1s": busiest,
    }


async def run_once(
    url: str,
    drafts: bool,
    args: argparse.Namespace,
    questions: list[str],
    first_chat: int,
    code: dict[str, str],
) -> dict[str, Any]:
    fake, llm = FakeTelegram().start(), FakeOpenAI().start()
    floors: list[float] = []

    def respond(body: dict[str, Any]) -> Reply:
        reply = slow_llm(body)
        if body.get("stream"):
            floors.append(model_floor_ms(reply.content))
        return reply

    llm.responder = respond
    finals: Counter[int] = Counter()

    def count(method: str, params: dict[str, Any]) -> None:
        if method in ("sendMessage", "editMessageText") and is_final(params):
            finals[int(params["chat_id"])] += 1

    fake.on_call = count
    port = free_port()
    serve = start_serve(
        port,
        url,
        llm.url,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=fake.url,
        TELEGRAM_WEBHOOK_URL=f"http://127.0.0.1:{port}/telegram/webhook",
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        TELEGRAM_DRAFTS="true" if drafts else "false",
        # both runs ask the same questions of one database: with the answer memory on, the
        # second run would be served from what the first remembered (no model, no slot wait)
        MEMORY_ENABLED="false",
        **code,
    )
    out: dict[str, Any] = {"posted": [], "first_chat": first_chat}
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            await wait_healthy(client)
            chats = args.chats * args.bursts  # each burst its own chats, first questions
            total = chats * args.updates
            every = max(1, total // max(args.duplicates, 1))
            dup = {
                n * 1000 + k
                for n in range(chats)
                for k in range(args.updates)
                if (n * args.updates + k) % every == 0
            }
            plans = [
                [questions[(n * args.updates + k) % len(questions)] for k in range(args.updates)]
                for n in range(chats)
            ]
            clocks = {
                "serve_cpu_ms_per_update": lambda: cpu_seconds(serve.pid),
                "workers_cpu_ms_per_update": lambda: children_cpu_seconds(serve.pid),
                "postgres_cpu_ms_per_update": postgres_cpu_seconds,
                "harness_cpu_ms_per_update": harness_cpu_seconds,
                "machine_busy_ms_per_update": machine_busy_seconds,
            }
            started = {key: clock() for key, clock in clocks.items()}
            for burst in range(args.bursts):  # the next burst once the last chat is answered
                await asyncio.gather(
                    *(
                        chat(client, finals, n, plans[n], dup, out)
                        for n in range(burst * args.chats, (burst + 1) * args.chats)
                    )
                )
            out["cpu"] = {
                key: (clock() - started[key]) * 1000 / total for key, clock in clocks.items()
            }
            await asyncio.sleep(2)  # late duplicates would show up here
    finally:
        stop_serve(serve)
        fake.stop()
        llm.stop()
    result = measure(fake, out["posted"])
    result["model_floor_ms"] = floors
    result.update({key: out.get("cpu", {}).get(key, float("nan")) for key in CPU_COLUMNS})
    first = out["first_chat"]
    end = first + args.chats * args.bursts
    result["steps_ms"] = await step_timings(url, first, end)
    result["opening_steps_ms"] = await step_timings(url, first, end, opening=True)
    return result


async def step_timings(
    url: str, first_chat: int, end_chat: int, opening: bool = False
) -> dict[str, list[float]]:
    """The graph's own step timings (ms) of the turns of chats [first_chat, end_chat); with
    `opening`, only each chat's first answer (the burst of all chats at once)."""
    db = connect(url)
    try:
        async with db.sessions() as session:
            rows = await session.execute(
                text(
                    "SELECT timings FROM (SELECT m.details->'timings_ms' AS timings,"
                    " row_number() OVER (PARTITION BY m.conversation_id ORDER BY m.id) AS nth"
                    " FROM messages m JOIN conversations c"
                    " ON c.id = m.conversation_id WHERE c.platform = 'telegram'"
                    " AND m.role = 'assistant'"
                    " AND split_part(c.external_id, ':', 1)::bigint >= :lo"
                    " AND split_part(c.external_id, ':', 1)::bigint < :hi) t"
                    " WHERE NOT :opening OR nth = 1"
                ),
                {"lo": first_chat, "hi": end_chat, "opening": opening},
            )
            steps: dict[str, list[float]] = defaultdict(list)
            for (timings,) in rows:
                for step, ms in (timings or {}).items():
                    steps[step].append(float(ms))
    finally:
        await db.dispose()
    return dict(steps)


def stage_rows(results: dict[str, dict[str, Any]], key: str) -> list[list[str]]:
    """One row per turn stage: its p50 / p95 in each run (`key`: all turns, or the burst's)."""
    return [
        [label]
        + [
            f"{pct(r[key].get(step, []), 50):.0f} / {pct(r[key].get(step, []), 95):.0f}"
            for r in results.values()
        ]
        for step, label in STAGES
    ]


async def main(args: argparse.Namespace) -> None:
    url, questions = await drcd_knowledge_base("bench_telegram", args.passages)
    results, rows = {}, []
    runs: list[tuple[str, bool, dict[str, str]]] = [
        ("drafts (default)", True, {}),
        ("edits", False, {}),
    ]
    if args.baseline:  # another checkout's code, first (or last), in the same run
        code = baseline_code(args.baseline)
        base = [("baseline drafts", True, code), ("baseline edits", False, code)]
        runs = [*runs, *base] if args.baseline_last else [*base, *runs]
    for n, (label, drafts, code) in enumerate(runs):
        r = await run_once(url, drafts, args, questions, 5000 + 100_000 * n, code)
        results[label] = r
        rows.append(
            [
                label,
                len(r["answers_per_update"]),
                pct(r["typing_ms"], 50),
                pct(r["typing_ms"], 95),
                pct(r["first_visible_ms"], 50),
                pct(r["first_visible_ms"], 95),
                sum(r["previews_per_answer"]) / max(1, len(r["previews_per_answer"])),
                r["max_previews_in_1s"],
                min(r["answers_per_update"]),
                max(r["answers_per_update"]),
                *(r[key] for key in CPU_COLUMNS),
            ]
        )
    table = print_table(
        [
            "mode",
            "updates",
            "typing p50 ms",
            "typing p95 ms",
            "first text p50 ms",
            "first text p95 ms",
            "previews/answer",
            "max previews in 1 s (one chat)",
            "answers/update min",
            "answers/update max",
            *CPU_COLUMNS.values(),
        ],
        rows,
    )
    breakdown = print_table(
        ["where the time goes (p50 / p95 ms)", *results],
        [
            [label] + [f"{pct(r[key], 50):.0f} / {pct(r[key], 95):.0f}" for r in results.values()]
            for label, key in (
                ("update → typing (bench: webhook post → first chat action)", "typing_ms"),
                ("typing → first text (bench: → first draft / message)", "typing_to_first_text_ms"),
                ("update → first text (bench)", "first_visible_ms"),
                ("  each chat's first question (all chats at once)", "first_visible_opening_ms"),
                ("  the later questions", "first_visible_later_ms"),
                ("fake model: request → answer field written (the floor)", "model_floor_ms"),
            )
        ]
        + stage_rows(results, "steps_ms"),
    )
    opening = print_table(
        ["the opening burst's turns (p50 / p95 ms)", *results],
        stage_rows(results, "opening_steps_ms"),
    )
    payload = {"table": table, "breakdown": breakdown, "opening": opening, **results}
    print(f"wrote {write_json('telegram', payload)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--updates", type=int, default=10)
    parser.add_argument("--duplicates", type=int, default=20)
    parser.add_argument("--passages", type=int, default=300)
    # more opening bursts in one run (new chats each time, after the last is answered):
    # a burst is 20 samples, too few to compare two codes' burst by one run
    parser.add_argument("--bursts", type=int, default=1)
    add_baseline_argument(parser)
    # the baseline's runs after this checkout's: a run's position can favour it (a warmer
    # machine later on), so a comparison is made both ways
    parser.add_argument("--baseline-last", action="store_true")
    asyncio.run(main(parser.parse_args()))
