"""No question lost, with real `ragbot serve` processes: the crash tests' model, chats, posts.

Each test runs two (or three) `ragbot serve` processes on the session's
database, with the fake Telegram or Slack and a fake model in this process.
The model "thinks" (holds its reply) while a worker is killed or told to
stop; what is counted is what a user would see: the complete answers in the
chat or thread, and that no half-made message of a dead worker is left behind.
Leases are short (DELIVERY_LEASE_SECONDS=3) so a dead worker's message is
taken by another within seconds. The tests are in tests/core/crash_recovery/,
one file each: each takes minutes, and files are what the test processes share out.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import httpx
import pytest
from slack_sdk.signature import SignatureVerifier

from storage.ingestion import IngestionService
from tests.support import fake_slack, fake_telegram
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.seen import slack_shown, telegram_shown
from textkit.catalog import say

PLAN = '{"task_type": "simple_faq", "should_retrieve": true, "query": "passport renewal cost"}'
ANSWER = "An adult passport renewal costs 1,300 dollars and takes four working days [1]."
MARK = "four working days"  # in every complete answer, never in a placeholder
DOC = (
    b"# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
    b"## Fees\n\nAn adult passport renewal costs 1,300 dollars and takes four working days.\n"
)
SLACK_SECRET = "s3cret"
TG_SECRET = "s3cret"
LATE_NOTE = say("inbox:late", "en")


class ThinkingModel:
    """A fake model that plans at once and holds its first answers for the given seconds.

    `asked` is set when an answer was requested (the model is "thinking" now).
    """

    def __init__(self, holds: list[float]) -> None:
        self._holds = list(holds)
        self._lock = threading.Lock()
        self.asked = threading.Event()
        self.answers_requested = 0
        self.fake = FakeOpenAI()
        self.fake.responder = self._respond
        self.fake.start()

    def _respond(self, body: dict[str, Any]) -> Reply:
        if "planning step" in str(body["messages"][0]["content"]):
            return Reply(PLAN)
        with self._lock:
            self.answers_requested += 1
            hold = self._holds.pop(0) if self._holds else 0.0
        self.asked.set()
        return Reply(ANSWER, delay=hold)

    def env(self) -> dict[str, str]:
        # the turns plan with the model, as these tests' timings were set for
        return {
            "LLM_BASE_URL": self.fake.url,
            "LLM_MODEL": "fake-model",
            "LLM_API_KEY": "k",
            "LLM_PLANNER": "always",
        }


@pytest.fixture
def model() -> Iterator[Callable[[list[float]], ThinkingModel]]:
    made: list[ThinkingModel] = []

    def make(holds: list[float]) -> ThinkingModel:
        made.append(ThinkingModel(holds))
        return made[-1]

    yield make
    for m in made:
        m.fake.stop()


@pytest.fixture
async def passport(ingestion: IngestionService) -> None:
    """The knowledge base the answers come from (public: Telegram and Slack read it)."""
    await ingestion.ingest_bytes("passport.md", DOC)


def common_env(database_url: str, model: ThinkingModel, **extra: str) -> dict[str, str]:
    """Both workers alike: one database, short leases, frequent sweeps, logs at INFO."""
    return {
        "DATABASE_URL": database_url,
        "DELIVERY_LEASE_SECONDS": "3",
        "INBOX_SWEEP_SECONDS": "0.5",
        "SHUTDOWN_GRACE_SECONDS": "20",
        "MEMORY_ENABLED": "false",
        "LOG_LEVEL": "INFO",
        **model.env(),
        **extra,
    }


def log_file(tmp_path: Path, name: str) -> TextIO:
    return (tmp_path / f"{name}.log").open("w")


def logs(tmp_path: Path) -> str:
    """Every worker's output (shown when an assertion fails)."""
    return "\n".join(f"--- {p.name}\n{p.read_text()}" for p in sorted(tmp_path.glob("*.log")))


def kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)


# --- Telegram (webhook mode) -------------------------------------------------------------


def telegram_env(fake: fake_telegram.FakeTelegram) -> dict[str, str]:
    return {
        "TELEGRAM_BOT_TOKEN": fake_telegram.TOKEN,
        "TELEGRAM_API_BASE_URL": fake.url,
        "TELEGRAM_WEBHOOK_URL": "https://bot.example.org/telegram/webhook",
        "TELEGRAM_WEBHOOK_SECRET": TG_SECRET,
    }


def telegram_post(port: int, update: dict[str, Any]) -> int:
    """POST an update to a worker's webhook, as Telegram does; the status it answered."""
    return httpx.post(
        f"http://127.0.0.1:{port}/telegram/webhook",
        json=update,
        headers={"X-Telegram-Bot-Api-Secret-Token": TG_SECRET},
        timeout=10,
    ).status_code


def telegram_answers(fake: fake_telegram.FakeTelegram, chat_id: int) -> list[str]:
    """The complete answers a user sees in the chat."""
    return [t for t in telegram_shown(fake, chat_id).values() if MARK in t]


# --- Slack (HTTP mode) -------------------------------------------------------------------


def slack_env(fake: fake_slack.FakeSlack) -> dict[str, str]:
    return {
        "SLACK_BOT_TOKEN": fake_slack.TOKEN,
        "SLACK_SIGNING_SECRET": SLACK_SECRET,
        "SLACK_API_BASE_URL": fake.url,
    }


def slack_post(port: int, event_id: str, ts: str, text: str, retry: int = 0) -> int:
    """POST a signed app_mention event, as Slack does (`retry`: its redelivery number)."""
    event = {
        "type": "app_mention",
        "user": "U1",
        "text": f"<@{fake_slack.BOT_USER}> {text}",
        "ts": ts,
        "channel": "C1",
    }
    body = json.dumps({"type": "event_callback", "event_id": event_id, "event": event}).encode()
    stamp = str(int(time.time()))
    signature = str(SignatureVerifier(SLACK_SECRET).generate_signature(timestamp=stamp, body=body))
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature,
    }
    if retry:
        headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_error"}
    url = f"http://127.0.0.1:{port}/slack/events"
    return httpx.post(url, content=body, headers=headers, timeout=10).status_code


def slack_answers(fake: fake_slack.FakeSlack, thread_ts: str) -> list[str]:
    """The complete answers a user sees in the thread."""
    return [t for t in slack_shown(fake, "C1", thread_ts).values() if MARK in t]


@pytest.fixture
def tg() -> Iterator[fake_telegram.FakeTelegram]:
    fake = fake_telegram.FakeTelegram().start()
    yield fake
    fake.stop()


@pytest.fixture
def slack() -> Iterator[fake_slack.FakeSlack]:
    fake = fake_slack.FakeSlack().start()
    yield fake
    fake.stop()
