"""`ragbot serve` and `ragbot worker` as users run them: health, SIGTERM, embedded Postgres."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import psutil

from tests.support.processes import health as _health
from tests.support.processes import wait_for as _wait_for


def _postmaster(data_dir: Path) -> psutil.Process:
    pid = int((data_dir / "pg" / "postmaster.pid").read_text().split()[0])
    return psutil.Process(pid)


def test_serve_stops_cleanly_on_sigterm_and_stops_its_embedded_postgres(
    start, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    proc, port = start("serve")
    assert _health(port) == 200
    postmaster = _postmaster(tmp_path / "data")
    assert postmaster.is_running()
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert "adapters: none configured" in out and "stopped" in out
    assert "Traceback" not in out
    _wait_for(lambda: not postmaster.is_running(), timeout=30)


def test_health_says_503_when_the_database_is_down(start, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "serve.log"
    with log.open("w") as output:
        # the job worker's queries give up on the lost database after 2 s (30 s by default)
        proc, port = start(
            "serve", _output=output, SHUTDOWN_GRACE_SECONDS="2", JOB_DB_WAIT_SECONDS="2"
        )
        assert _health(port) == 200
        postmaster = _postmaster(tmp_path / "data")
        postmaster.send_signal(signal.SIGINT)  # Postgres "fast" shutdown: the database goes
        _wait_for(lambda: not postmaster.is_running(), timeout=30)
        response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=15)
        assert response.status_code == 503 and response.json()["status"] == "unavailable"
        # the job worker stops on the lost connection and is restarted, not fatal
        _wait_for(lambda: "job worker" in (text := log.read_text()) and "restarting" in text, 60)
        assert proc.poll() is None and _health(port) == 503
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        proc.wait(timeout=60)
    assert proc.returncode == 0, log.read_text()


def test_worker_serves_health_on_the_shared_database(start, database_url: str) -> None:  # type: ignore[no-untyped-def]
    proc, port = start("worker", DATABASE_URL=database_url)
    assert _health(port) == 200
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert "job worker: running" in out and "adapters" not in out


async def test_serve_answers_slack_over_real_http(start, database_url: str, ingestion) -> None:  # type: ignore[no-untyped-def]
    """`ragbot serve` with Slack set: HTTP on its own thread, turns on the core loop."""
    import json

    from slack_sdk.signature import SignatureVerifier

    from tests.support.fake_slack import BOT_USER, TOKEN, FakeSlack

    body_md = b"# Passport renewal\n\nAn adult passport renewal costs 1,300 dollars.\n"
    await ingestion.ingest_bytes("passport.md", body_md)  # the blocking calls below are fine:
    # nothing else runs on this test's loop
    fake = FakeSlack().start()
    try:
        proc, port = start(
            "serve",
            DATABASE_URL=database_url,
            SLACK_BOT_TOKEN=TOKEN,
            SLACK_SIGNING_SECRET="s3cret",
            SLACK_API_BASE_URL=fake.url,
        )
        event = {
            "type": "app_mention",
            "user": "U1",
            "text": f"<@{BOT_USER}> passport fee?",
            "ts": "1.1",
            "channel": "C1",
        }
        body = json.dumps({"type": "event_callback", "event_id": "Ev1", "event": event}).encode()
        stamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": SignatureVerifier("s3cret").generate_signature(
                timestamp=stamp, body=body
            ),
        }
        url = f"http://127.0.0.1:{port}/slack/events"
        assert httpx.post(url, content=body, headers=headers, timeout=10).status_code == 200
        bad = {**headers, "X-Slack-Signature": "v0=00"}
        assert httpx.post(url, content=body, headers=bad, timeout=10).status_code == 401

        def answered() -> bool:
            return any("1,300" in json.dumps(p.get("blocks") or []) for p in fake.of("chat.update"))

        _wait_for(answered, timeout=60)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0 and "adapters: slack" in out, out
    finally:
        fake.stop()


async def test_serve_answers_telegram_webhook_over_real_http(
    start, database_url: str, ingestion
) -> None:  # type: ignore[no-untyped-def]
    """`ragbot serve` with Telegram in webhook mode: setWebhook at start, secret checked."""
    from tests.support.fake_telegram import TOKEN, FakeTelegram, private_text

    body_md = b"# Passport renewal\n\nAn adult passport renewal costs 1,300 dollars.\n"
    await ingestion.ingest_bytes("passport.md", body_md)
    fake = FakeTelegram().start()
    try:
        proc, port = start(
            "serve",
            DATABASE_URL=database_url,
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE_URL=fake.url,
            TELEGRAM_WEBHOOK_URL="https://bot.example.org/telegram/webhook",
            TELEGRAM_WEBHOOK_SECRET="s3cret",
            LOG_LEVEL="INFO",  # httpx logs request URLs at INFO
        )
        assert fake.of("setWebhook")[0]["secret_token"] == "s3cret"
        url = f"http://127.0.0.1:{port}/telegram/webhook"
        update = private_text(1, 77, "passport fee?")
        wrong = {"X-Telegram-Bot-Api-Secret-Token": "nope"}
        assert httpx.post(url, json=update, headers=wrong, timeout=10).status_code == 401
        right = {"X-Telegram-Bot-Api-Secret-Token": "s3cret"}
        assert httpx.post(url, json=update, headers=right, timeout=10).status_code == 200

        def answered() -> bool:
            return any("1,300" in p.get("text", "") for p in fake.of("sendMessage", 77))

        _wait_for(answered, timeout=60)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0 and "adapters: telegram" in out, out
        assert TOKEN not in out and TOKEN.split(":")[1] not in out  # the URL holds the token
    finally:
        fake.stop()
