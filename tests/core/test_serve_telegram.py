"""`ragbot serve` with Telegram in webhook mode over real HTTP."""

from __future__ import annotations

import signal

import httpx

from tests.support.processes import wait_for_answer


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

        # a first turn, while other processes start
        wait_for_answer(proc, answered, timeout=150)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0 and "adapters: telegram" in out, out
        assert TOKEN not in out and TOKEN.split(":")[1] not in out  # the URL holds the token
    finally:
        fake.stop()
