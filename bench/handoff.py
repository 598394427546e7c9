"""Hand-off benchmark: Telegram citizens handed to Slack staff through `ragbot serve`.

Usage: .venv/bin/python -m bench.handoff [--citizens 20] [--passages 300]
Fake Bot API, fake Slack Web API and fake LLM; a DRCD knowledge base. Run
twice in one go: without a staff room (the baseline: what every message pays
today) and with HANDOFF_SLACK_CHANNEL. In each, N citizens at once ask
something the documents do not answer (time to the refusal: what the desk's
per-message lookups cost). With the staff room, each then presses "Ask a
person" (time to the card in Slack and to the citizen's notice), a staff
member replies in each card's thread (time to the citizen's Telegram chat)
and the citizen answers back (time to the Slack thread); every relay is
counted, to show each arrives exactly once. Writes bench/results/handoff.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

import httpx

from bench.answers import scripted_llm
from bench.common import pct, print_table, write_json
from bench.serving import drcd_knowledge_base, free_port, start_serve, stop_serve, wait_healthy
from bench.slack import signed
from tests.support.fake_openai import FakeOpenAI
from tests.support.fake_slack import TOKEN as SLACK_TOKEN
from tests.support.fake_slack import FakeSlack
from tests.support.fake_telegram import TOKEN, FakeTelegram, callback, private_text

TG_SECRET = "bench-webhook-secret"
ROOM, STAFF = "CSTAFF", "USTAFF"
MISSING = "請問飼養的狗要去哪裡辦理寵物登記？第{n}號"


def tg_calls(fake: FakeTelegram, chat: int, needle: str) -> list[tuple[float, dict[str, Any]]]:
    return [
        (at, p)
        for (m, p), at in zip(fake.calls, fake.times, strict=False)
        if m == "sendMessage"
        and int(p.get("chat_id", 0)) == chat
        and needle in json.dumps(p, ensure_ascii=False)
    ]


def slack_posts(fake: FakeSlack, **where: str) -> list[tuple[float, dict[str, Any], Any]]:
    return [
        (at, p, r)
        for (m, p), (_, r), at in zip(fake.calls, fake.responses, fake.times, strict=False)
        if m == "chat.postMessage" and all(p.get(k) == v for k, v in where.items())
    ]


async def first(check: Any, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        await asyncio.sleep(0.02)
    raise TimeoutError("not seen in time")


HEADERS = {"X-Telegram-Bot-Api-Secret-Token": TG_SECRET}


async def ask(
    tg: httpx.AsyncClient, fake_tg: FakeTelegram, chat: int, n: int, out: dict[str, list[float]]
) -> dict[str, Any]:
    """A question the documents do not answer; its refusal as sent."""
    asked = time.monotonic()
    question = private_text(chat * 10, chat, MISSING.format(n=n), language="zh-hant")
    await tg.post("/telegram/webhook", json=question, headers=HEADERS)
    at, refusal = (await first(lambda: tg_calls(fake_tg, chat, '"fb:')))[0]
    out["refusal_ms"].append((at - asked) * 1000)
    return dict(refusal)


async def hand_off(
    tg: httpx.AsyncClient,
    slack: httpx.AsyncClient,
    fake_tg: FakeTelegram,
    fake_slack: FakeSlack,
    chat: int,
    n: int,
    refusal: dict[str, Any],
    out: dict[str, list[float]],
) -> None:
    """Ask a person, a staff reply, the citizen's answer back; each timed."""
    headers = HEADERS
    buttons = [b for row in refusal["reply_markup"]["inline_keyboard"] for b in row]
    button = next(
        b["callback_data"] for b in buttons if b["callback_data"].startswith("cb:handoff")
    )
    shown = next(m for m in fake_tg.sent if m["chat"]["id"] == chat)
    pressed = time.monotonic()
    press = callback(
        chat * 10 + 1, chat, button, {**shown, "reply_markup": refusal["reply_markup"]}
    )
    await tg.post("/telegram/webhook", json=press, headers=headers)
    card_at, _, card_reply = (
        await first(
            lambda: [c for c in slack_posts(fake_slack, channel=ROOM) if f"第{n}號" in c[1]["text"]]
        )
    )[0]
    out["card_ms"].append((card_at - pressed) * 1000)
    notice_at, _ = (await first(lambda: tg_calls(fake_tg, chat, "/bot")))[0]
    out["notice_ms"].append((notice_at - pressed) * 1000)
    # a staff reply in the card's thread → the citizen's chat
    ts = f"{2000 + n}.1"
    event = {
        "type": "message",
        "channel": ROOM,
        "channel_type": "channel",
        "user": STAFF,
        "text": f"請帶身分證辦理（{n}）",
        "ts": ts,
        "thread_ts": card_reply["ts"],
        "event_ts": ts,
    }
    envelope = {
        "type": "event_callback",
        "team_id": "T1",
        "api_app_id": "A1",
        "event_id": f"Ev{n}",
        "event": event,
    }
    body = json.dumps(envelope).encode()
    replied = time.monotonic()
    await slack.post("/slack/events", content=body, headers=signed(body))
    relay_at, _ = (await first(lambda: tg_calls(fake_tg, chat, "專人回覆")))[0]
    out["staff_to_citizen_ms"].append((relay_at - replied) * 1000)
    # the citizen answers → the card's thread
    answered = time.monotonic()
    back = private_text(chat * 10 + 2, chat, f"謝謝，需要照片嗎？（{n}）", language="zh-hant")
    await tg.post("/telegram/webhook", json=back, headers=headers)
    thread = card_reply["ts"]
    into_at, _, _ = (
        await first(
            lambda: [
                c
                for c in slack_posts(fake_slack, channel=ROOM, thread_ts=thread)
                if "需要照片" in c[1]["text"]
            ]
        )
    )[0]
    out["citizen_to_staff_ms"].append((into_at - answered) * 1000)


async def run_once(url: str, args: argparse.Namespace, handoff: bool) -> dict[str, Any]:
    from bench.slack import SECRET as SLACK_SECRET

    fake_tg, fake_slack, llm = FakeTelegram().start(), FakeSlack().start(), FakeOpenAI().start()
    llm.responder = scripted_llm
    port = free_port()
    rooms = {"HANDOFF_SLACK_CHANNEL": ROOM, "HANDOFF_STAFF_USER_IDS": f"slack:{STAFF}"}
    serve = start_serve(
        port,
        url,
        llm.url,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=fake_tg.url,
        TELEGRAM_WEBHOOK_URL=f"http://127.0.0.1:{port}/telegram/webhook",
        TELEGRAM_WEBHOOK_SECRET=TG_SECRET,
        SLACK_BOT_TOKEN=SLACK_TOKEN,
        SLACK_SIGNING_SECRET=SLACK_SECRET,
        SLACK_API_BASE_URL=fake_slack.url.rstrip("/"),
        **(rooms if handoff else {}),
    )
    out: dict[str, list[float]] = {
        k: []
        for k in (
            "refusal_ms",
            "card_ms",
            "notice_ms",
            "staff_to_citizen_ms",
            "citizen_to_staff_ms",
        )
    }
    base = 8000 if handoff else 9000
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            await wait_healthy(client)
            # all ask at once; then (hand-off run) all press at once: the refusals'
            # timings are not disturbed by the hand-offs' work
            refusals = await asyncio.gather(
                *(ask(client, fake_tg, base + n, n, out) for n in range(args.citizens))
            )
            if handoff:
                await asyncio.gather(
                    *(
                        hand_off(client, client, fake_tg, fake_slack, base + n, n, r, out)
                        for n, r in enumerate(refusals)
                    )
                )
            await asyncio.sleep(2)  # duplicates, if any, would show up here
        relays = {
            "to_citizens": [
                len(tg_calls(fake_tg, base + n, "專人回覆")) for n in range(args.citizens)
            ],
            "to_staff": [
                sum("需要照片" in c[1]["text"] for c in slack_posts(fake_slack, channel=ROOM))
            ],
            "cards": len(
                [c for c in slack_posts(fake_slack, channel=ROOM) if "🙋" in c[1]["text"]]
            ),
        }
    finally:
        stop_serve(serve)
        fake_tg.stop()
        fake_slack.stop()
        llm.stop()
    return {**out, "relays": relays}


async def main(args: argparse.Namespace) -> None:
    url, _ = await drcd_knowledge_base("bench_handoff", args.passages)
    results: dict[str, Any] = {}
    rows = []
    for label, on in (("no staff room (baseline)", False), ("HANDOFF_SLACK_CHANNEL set", True)):
        r = await run_once(url, args, on)
        results[label] = r

        def p(key: str, q: float, r: dict[str, Any] = r) -> Any:
            return round(pct(r[key], q), 1) if r[key] else "—"

        rows.append(
            [
                label,
                p("refusal_ms", 50),
                p("refusal_ms", 95),
                p("card_ms", 50),
                p("card_ms", 95),
                p("notice_ms", 95),
                p("staff_to_citizen_ms", 50),
                p("staff_to_citizen_ms", 95),
                p("citizen_to_staff_ms", 50),
                p("citizen_to_staff_ms", 95),
                f"{r['relays']['cards']} cards, relays to citizens"
                f" {min(r['relays']['to_citizens'])}–{max(r['relays']['to_citizens'])} each,"
                f" to staff {r['relays']['to_staff'][0]}"
                if on
                else "—",
            ]
        )
    table = print_table(
        [
            "run",
            "refusal p50 ms",
            "refusal p95 ms",
            "press→card p50 ms",
            "press→card p95 ms",
            "press→notice p95 ms",
            "staff→citizen p50 ms",
            "staff→citizen p95 ms",
            "citizen→staff p50 ms",
            "citizen→staff p95 ms",
            "exactly once",
        ],
        rows,
    )
    print(f"wrote {write_json('handoff', {'table': table, 'citizens': args.citizens, **results})}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--citizens", type=int, default=20)
    parser.add_argument("--passages", type=int, default=300)
    asyncio.run(main(parser.parse_args()))
