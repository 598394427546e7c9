"""Workers running both adapters on one core, with hand-off to a Slack staff channel.

Telegram citizens and Slack staff meet through the fake Slack and Telegram
servers (real slack-bolt/slack-sdk and python-telegram-bot clients) and the
embedded Postgres, as `ragbot serve` runs them.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

from bot.app.case_renderers import register_cases
from bot.slack.app import SlackAdapter
from bot.telegram.app import TelegramAdapter
from storage.embeddings import Embedder
from tests.slack.test_slack import SlackHarness, slack_settings
from tests.support.core_fixtures import Worker, close_worker, make_worker
from tests.support.fake_slack import FakeSlack
from tests.support.fake_telegram import TOKEN, FakeTelegram
from tests.telegram.test_telegram import SECRET, TelegramHarness

STAFF_ROOM = "CSTAFF"
STAFF = "USTAFF"


@dataclass
class Both:
    """One worker with Slack (HTTP) and Telegram (webhook) adapters on its core."""

    worker: Worker
    slack: SlackHarness
    tg: TelegramHarness


def handoff_settings(fake_slack: FakeSlack, fake_tg: FakeTelegram, **extra: Any) -> Any:
    """Both platforms on the fakes; hand-off to the Slack channel CSTAFF, staff USTAFF."""
    values = {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_BASE_URL": fake_tg.url,
        "TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram/webhook",
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "HANDOFF_SLACK_CHANNEL": STAFF_ROOM,
        "HANDOFF_STAFF_USER_IDS": f"slack:{STAFF}",
        **extra,
    }
    return slack_settings(fake_slack, **values)


async def start_both(url: str, embedder: Embedder, settings: Any) -> Both:
    """A worker with both adapters started and its inbox and outbox running."""
    worker = await make_worker(url, embedder, settings)
    register_cases(worker.core)  # as the runtime does: the adapters leave cards to it
    slack = SlackAdapter(worker.core, settings)
    tg = TelegramAdapter(worker.core, settings)
    await slack.start()
    await tg.start()
    worker.core.inbox.open()
    worker.core.outbox.open()
    return Both(worker, SlackHarness(worker, slack), TelegramHarness(worker, tg))


async def stop_both(both: Both) -> None:
    """Drain as `ragbot serve` does, then close."""
    await both.slack.http.aclose()
    await both.tg.http.aclose()
    core = both.worker.core
    core.begin_drain()
    await both.slack.adapter.stop()
    await both.tg.adapter.stop()
    await core.drain(5)
    await core.outbox.stop(5)
    await both.slack.adapter.close()
    await both.tg.adapter.close()
    await close_worker(both.worker)


def staff_posts(fake: FakeSlack, **where: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(params, reply) of chat.postMessage calls in the staff room."""
    return [
        (p, r)
        for (m, p), (_, r) in zip(fake.calls, fake.responses, strict=True)
        if m == "chat.postMessage"
        and p.get("channel") == STAFF_ROOM
        and all(p.get(k) == v for k, v in where.items())
    ]


def thread_message(text: str, ts: str, thread_ts: str, user: str = STAFF) -> dict[str, Any]:
    """A message event in the staff room's thread under `thread_ts`."""
    return {
        "type": "message",
        "channel": STAFF_ROOM,
        "channel_type": "channel",
        "user": user,
        "text": text,
        "ts": ts,
        "thread_ts": thread_ts,
        "event_ts": ts,
    }


def press(user: str, channel: str, message: dict[str, Any], button: dict[str, Any]) -> str:
    """A block_actions payload (form field `payload`) for a button of `message`."""
    return json.dumps(
        {
            "type": "block_actions",
            "user": {"id": user, "team_id": "T1"},
            "channel": {"id": channel},
            "team": {"id": "T1"},
            "trigger_id": f"t{time.monotonic_ns()}",
            "api_app_id": "A1",
            "container": {"type": "message", "channel_id": channel, "message_ts": message["ts"]},
            "message": message,
            "actions": [
                {
                    "action_id": button["action_id"],
                    "value": button["value"],
                    "type": "button",
                    "action_ts": f"{time.time():.6f}",
                }
            ],
        }
    )


def buttons_of(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every button element of a message's blocks."""
    return [e for b in blocks if b.get("type") == "actions" for e in b.get("elements", [])]


async def eventually(check: Any, timeout: float = 30) -> Any:
    """Poll `check()` until it returns something truthy; that value."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = check()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.05)


async def recorded(db: Any, platform: str, ref: str) -> None:
    """Wait until the bot has noted staff-room message `ref` ("chat:message") as a case's
    (it does so once the send returned): a reply to it finds the case from then on."""
    from sqlalchemy import text

    async def found() -> bool:
        async with db.sessions() as session:
            hit = await session.scalar(
                text("SELECT 1 FROM handoff_posts WHERE platform = :p AND ref = :r"),
                {"p": platform, "r": ref},
            )
        return hit is not None

    deadline = asyncio.get_running_loop().time() + 30
    while not await found():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{platform} post {ref} never recorded")
        await asyncio.sleep(0.05)
