"""`ragbot serve` with Slack over real HTTP: a signed event answered, a forged one refused."""

from __future__ import annotations

import signal
import time

import httpx

from tests.support.processes import wait_for_answer


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
        signature = SignatureVerifier("s3cret").generate_signature(timestamp=stamp, body=body)
        assert signature is not None  # None only without a timestamp
        headers = {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": signature,
        }
        url = f"http://127.0.0.1:{port}/slack/events"
        assert httpx.post(url, content=body, headers=headers, timeout=10).status_code == 200
        bad = {**headers, "X-Slack-Signature": "v0=00"}
        assert httpx.post(url, content=body, headers=bad, timeout=10).status_code == 401

        def answered() -> bool:
            return any("1,300" in json.dumps(p.get("blocks") or []) for p in fake.of("chat.update"))

        # a first turn, while other processes start
        try:
            wait_for_answer(proc, answered, timeout=150)
        except AssertionError as late:
            # what the user saw, if anything: a reply without the fee is not this failure's
            # timing but its answer
            seen = [(m, p.get("text"), p.get("blocks")) for m, p in fake.calls]
            raise AssertionError(f"{late}\nSlack received: {seen!r}"[-8000:]) from late
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0 and "adapters: slack" in out, out
    finally:
        fake.stop()
