"""The real bolt app on the serving core, against a fake Slack Web API, with signed requests."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from slack_sdk.signature import SignatureVerifier
from sqlalchemy import text

from bot.app.case_renderers import register_cases
from bot.core.delivery.http import build_app
from bot.settings import Settings
from bot.slack.app import SlackAdapter
from bot.slack.blocks import escape
from storage.db import Database, head_revision
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.support.core_fixtures import (
    DOCS,
    Worker,
    close_worker,
    jobs_running,
    make_worker,
    settings_for_tests,
    until,
    until_settled,
)
from tests.support.fake_slack import BOT_USER, TOKEN, FakeSlack
from tests.support.listed_answer import (
    HEADINGS,
    ITEMS,
    LEAD,
    LIST_BODY,
    LIST_DOCUMENT,
    LIST_QUESTION,
)

SECRET = "test-signing-secret"


@pytest.fixture
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack().start()
    yield fake
    fake.stop()


class SlackHarness:
    """One app instance (its own core and engine) reached through signed HTTP requests."""

    def __init__(self, worker: Worker, adapter: SlackAdapter) -> None:
        self.worker, self.adapter = worker, adapter
        core = worker.core
        app = build_app(worker.db, head_revision(), adapter.routes, lambda: core.closing)
        self.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")

    async def post(
        self,
        body: bytes,
        kind: str,
        *,
        secret: str = SECRET,
        age: int = 0,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        stamp = str(int(time.time()) - age)
        signature = SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body)
        assert signature is not None  # None only without a timestamp
        return await self.http.post(
            "/slack/events",
            content=body,
            headers={
                "Content-Type": kind,
                "X-Slack-Request-Timestamp": stamp,
                "X-Slack-Signature": signature,
                **(headers or {}),
            },
        )

    async def event(
        self, event: dict[str, Any], event_id: str | None = None, **kw: Any
    ) -> httpx.Response:
        envelope = {
            "type": "event_callback",
            "team_id": "T1",
            "api_app_id": "A1",
            "event_id": event_id or f"Ev{uuid.uuid4().hex[:8]}",
            "event": event,
        }
        return await self.post(json.dumps(envelope).encode(), "application/json", **kw)

    async def form(self, payload: dict[str, Any]) -> httpx.Response:
        from urllib.parse import urlencode

        return await self.post(urlencode(payload).encode(), "application/x-www-form-urlencoded")


def slack_settings(fake: FakeSlack, **extra: Any) -> Settings:
    """An HTTP-mode Slack app on the fake, previews updated without a pause."""
    return settings_for_tests(
        SLACK_BOT_TOKEN=TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_BASE_URL=fake.url.rstrip("/"),
        SLACK_UPDATE_INTERVAL=0.0,
        **extra,
    )


async def serve_slack(worker: Worker, settings: Settings, sweeping: bool = True) -> SlackHarness:
    """The adapter started on `worker`, its inbox and outbox running, as `ragbot serve` does
    (`sweeping=False`: no inbox loops, the test sweeps itself)."""
    register_cases(worker.core)  # as the runtime does: the adapter leaves cards to it
    adapter = SlackAdapter(worker.core, settings)
    await adapter.start()
    if sweeping:
        worker.core.inbox.open()
    worker.core.outbox.open()
    worker.core.stops.start_relay()
    return SlackHarness(worker, adapter)


async def stop_slack(harness: SlackHarness) -> None:
    """Drain as `ragbot serve` does, then close the worker."""
    await harness.http.aclose()
    core = harness.worker.core
    core.begin_drain()
    await harness.adapter.stop()
    await core.drain(5)
    await core.outbox.stop(5)
    await harness.adapter.close()
    await core.stops.stop_relay()
    async with harness.worker.db.transaction() as session:  # (the db fixture keeps outbox
        await session.execute(text("DELETE FROM outbox"))  # rows; keys would collide)
    await close_worker(harness.worker)


@pytest.fixture
async def slack(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> AsyncIterator[list[SlackHarness]]:
    """Two app instances on one database, with the sample documents."""
    settings = slack_settings(fake_slack)
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode(), collection="internal")
    harnesses = []
    for _ in range(2):
        worker = await make_worker(database_url, embedder, settings)
        harnesses.append(await serve_slack(worker, settings))
    yield harnesses
    for h in harnesses:
        await stop_slack(h)


def mention(
    text_: str, ts: str, *, user: str = "U1", channel: str = "C1", thread: str | None = None
) -> dict[str, Any]:
    event = {
        "type": "app_mention",
        "user": user,
        "text": f"<@{BOT_USER}> {text_}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    }
    if thread:
        event["thread_ts"] = thread
    return event


def _finals(fake: FakeSlack) -> list[dict[str, Any]]:
    """Posts and updates with blocks, but for previews (which carry the Stop button)."""
    return [
        p
        for m, p in fake.calls
        if m in ("chat.update", "chat.postMessage")
        and p.get("blocks")
        and not any(b.get("block_id") == "ragbot_stop" for b in p["blocks"])
    ]


async def final_posts(
    fake: FakeSlack, count: int = 1, timeout: float = 30, *, db: Database
) -> list[dict[str, Any]]:
    """Wait for `count` final answers (an update or post with blocks); return them, and
    any duplicates, once nothing is left that could send one (`until_settled`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(_finals(fake)) >= count:
            await until_settled(db, timeout)
            return _finals(fake)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no final answer; calls: {[m for m, _ in fake.calls]}")


def blocks_text(post: dict[str, Any]) -> str:
    parts = []
    for block in post["blocks"]:
        if block.get("text"):
            parts.append(block["text"]["text"])
        for el in block.get("elements", []):
            parts.append(el.get("text") if isinstance(el.get("text"), str) else json.dumps(el))
    return "\n".join(parts)


async def test_mention_gets_a_threaded_streamed_answer_citing_the_document(
    slack,
    fake_slack,
    db: Database,
) -> None:  # type: ignore[no-untyped-def]
    response = await slack[0].event(mention("How much does a passport renewal cost?", "100.1"))
    assert response.status_code == 200
    [final] = await final_posts(fake_slack, db=db)
    started = fake_slack.of("chat.startStream")
    assert started and started[0]["thread_ts"] == "100.1" and started[0]["channel"] == "C1"
    assert fake_slack.of("chat.appendStream") and fake_slack.of("chat.stopStream")
    shown = blocks_text(final)
    assert "1,300 dollars" in shown and "[1]" in shown and "passport" in shown
    assert any(b.get("block_id") == "ragbot_feedback" for b in final["blocks"])


async def test_dm_and_thread_follow_up_use_history(slack, fake_slack, db: Database) -> None:  # type: ignore[no-untyped-def]
    dm = {
        "type": "message",
        "channel_type": "im",
        "channel": "D1",
        "user": "U1",
        "text": "How much does a passport renewal cost?",
        "ts": "200.1",
    }
    await slack[0].event(dm)
    await final_posts(fake_slack, 1, db=db)
    follow = {
        **dm,
        "text": "and how long does it take?",
        "ts": "200.2",
        "thread_ts": "200.1",
        "user": "U2",
    }
    await slack[0].event(follow)
    finals = await final_posts(fake_slack, 2, db=db)
    assert "four working days" in blocks_text(finals[-1])
    async with db.sessions() as session:
        seen = (
            (
                await session.execute(
                    text(
                        "SELECT details->>'history' FROM messages"
                        " WHERE role = 'assistant' ORDER BY id"
                    )
                )
            )
            .scalars()
            .all()
        )
    assert seen == ["0", "2"]
    async with db.sessions() as session:
        askers = (
            (
                await session.execute(
                    text("SELECT details->>'user' FROM messages WHERE role = 'user' ORDER BY id")
                )
            )
            .scalars()
            .all()
        )
    # two people in one thread, told apart by pseudonyms, never by their Slack ids
    assert len(set(askers)) == 2 and None not in askers
    assert not {"U1", "U2"} & set(askers)


async def test_channel_messages_not_for_the_bot_and_its_own_messages_are_ignored(
    slack, fake_slack, db: Database
) -> None:  # type: ignore[no-untyped-def]
    chatter = {
        "type": "message",
        "channel_type": "channel",
        "channel": "C9",
        "user": "U1",
        "text": "lunch?",
        "ts": "300.1",
    }
    own = {**chatter, "user": BOT_USER, "text": "my own answer", "ts": "300.2", "bot_id": "BBOT"}
    edit = {**chatter, "subtype": "message_changed", "ts": "300.3"}
    for event in (chatter, own, edit):
        assert (await slack[0].event(event)).status_code == 200
    await until_settled(db)  # (a message taken is in the inbox before its ack)
    assert [m for m, _ in fake_slack.calls if m.startswith("chat.")] == []


async def test_a_group_dm_is_answered_without_a_mention_and_read_like_a_channel(
    slack, fake_slack, db: Database
) -> None:  # type: ignore[no-untyped-def]
    group = {
        "type": "message",
        "channel_type": "mpim",
        "channel": "G7",
        "user": "U1",
        "text": "How much does a passport renewal cost?",
        "ts": "310.1",
    }
    await slack[0].event(group)
    [answer] = await final_posts(fake_slack, db=db)
    assert answer["channel"] == "G7" and "1,300 dollars" in blocks_text(answer)
    # a group DM with someone from another organisation reads like a shared channel: the
    # internal documents stay out of it, as they do in a shared channel
    fake_slack.channels["G8"] = {"is_mpim": True, "is_ext_shared": True}
    await slack[0].event({**group, "channel": "G8", "ts": "310.2"})
    finals = await final_posts(fake_slack, 2, db=db)
    assert finals[-1]["channel"] == "G8" and "1,300" not in blocks_text(finals[-1])


async def test_retries_and_two_instances_answer_once(slack, fake_slack, db: Database) -> None:  # type: ignore[no-untyped-def]
    event = mention("passport renewal fee?", "400.1")
    await asyncio.gather(
        slack[0].event(event, event_id="EvSame"),
        slack[1].event(event, event_id="EvSame"),
        slack[0].event(
            event,
            event_id="EvSame",
            headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"},
        ),
        # the same message as a `message` event (another event id)
        slack[1].event({**event, "type": "message", "channel_type": "channel"}, event_id="EvTwin"),
    )
    finals = await final_posts(fake_slack, 1, db=db)  # (and whatever could follow it)
    assert len(finals) == 1 and len(fake_slack.of("chat.startStream")) == 1


@pytest.mark.parametrize(("secret", "age"), [("wrong-secret", 0), (SECRET, 60 * 10)])
async def test_bad_or_stale_signature_is_401_and_nothing_runs(
    slack, fake_slack, db: Database, secret: str, age: int
) -> None:  # type: ignore[no-untyped-def]
    response = await slack[0].event(mention("passport fee?", "500.1"), secret=secret, age=age)
    assert response.status_code == 401
    await until_settled(db)
    assert not fake_slack.of("chat.startStream") and not fake_slack.of("chat.postMessage")


async def test_feedback_click_is_stored_and_shown(slack, fake_slack, db: Database) -> None:  # type: ignore[no-untyped-def]
    await slack[0].event(mention("passport renewal fee?", "600.1"))
    [final] = await final_posts(fake_slack, db=db)
    # Slack's feedback buttons for AI answers: one element, a positive and a negative button
    block = next(b for b in final["blocks"] if b.get("block_id") == "ragbot_feedback")
    assert block["type"] == "context_actions"
    [element] = block["elements"]
    assert element["type"] == "feedback_buttons"
    payload = {
        "type": "block_actions",
        "user": {"id": "U7"},
        "channel": {"id": "C1"},
        "team": {"id": "T1"},
        "trigger_id": "t1",
        "api_app_id": "A1",
        "container": {"type": "message", "channel_id": "C1", "message_ts": "1700000000.000009"},
        "message": {
            "ts": "1700000000.000009",
            "thread_ts": "600.1",
            "text": "x",
            "blocks": final["blocks"],
        },
        "actions": [
            {
                "action_id": element["action_id"],
                "value": element["negative_button"]["value"],
                "block_id": "ragbot_feedback",
                "type": "feedback_buttons",
            }
        ],
    }
    response = await slack[0].form({"payload": json.dumps(payload)})
    assert response.status_code == 200
    for _ in range(100):
        if any("feedback was recorded" in json.dumps(p) for p in fake_slack.of("chat.update")):
            break
        await asyncio.sleep(0.05)
    async with db.sessions() as session:
        votes = (
            await session.execute(text("SELECT user_id, rating, platform FROM feedback"))
        ).all()
    assert [tuple(v) for v in votes] == [("U7", -1, "slack")]
    assert any("feedback was recorded" in json.dumps(p) for p in fake_slack.of("chat.update"))


async def test_admin_file_share_is_downloaded_with_the_token_and_ingested(
    slack, fake_slack, db: Database
) -> None:  # type: ignore[no-untyped-def]
    fake_slack.files["bins.md"] = b"# Bins\n\nGreen bins are emptied every Thursday.\n"
    share = {
        "type": "message",
        "subtype": "file_share",
        "channel_type": "im",
        "channel": "D5",
        "user": "U-ADMIN",
        "text": "upload",  # the upload word: without it the file would only be offered
        "ts": "700.1",
        "files": [
            {
                "id": "F1",
                "name": "bins.md",
                "size": 46,
                "mimetype": "text/markdown",
                "url_private_download": f"{fake_slack.root}files/bins.md",
            }
        ],
    }
    async with jobs_running(slack[0].worker):
        await slack[0].event(share)
        await until(
            lambda: any("was added" in p.get("text", "") for p in fake_slack.of("chat.postMessage"))
        )
    texts = [p.get("text", "") for p in fake_slack.of("chat.postMessage")]
    assert any(t.startswith("Received bins.md") for t in texts)
    assert any(
        "bins.md was added as &#x27;bins&#x27;" in t or "bins.md was added as 'bins'" in t
        for t in texts
    ), texts
    assert fake_slack.downloads == [f"Bearer {TOKEN}"]
    async with db.sessions() as session:
        assert (
            await session.execute(text("SELECT collection FROM documents WHERE title = 'bins'"))
        ).scalar() == "internal"


async def test_non_admin_share_and_commands_are_refused(slack, fake_slack, db: Database) -> None:  # type: ignore[no-untyped-def]
    fake_slack.files["x.md"] = b"# X\n\nSomething.\n"
    share = {
        "type": "message",
        "subtype": "file_share",
        "channel_type": "im",
        "channel": "D6",
        "user": "U1",
        "text": "",
        "ts": "800.1",
        "files": [
            {
                "id": "F2",
                "name": "x.md",
                "size": 16,
                "url_private_download": f"{fake_slack.root}files/x.md",
            }
        ],
    }
    await slack[0].event(share)
    await slack[0].event(
        {
            "type": "message",
            "channel_type": "im",
            "channel": "D6",
            "user": "U1",
            "text": 'delete "passport"',
            "ts": "800.2",
        }
    )
    await final_posts(fake_slack, 2, db=db)
    shown = [
        blocks_text(p)
        for p in fake_slack.of("chat.update") + fake_slack.of("chat.postMessage")
        if p.get("blocks")
    ]
    assert sum("only administrators" in s for s in shown) == 2
    assert fake_slack.downloads == []
    async with db.sessions() as session:
        assert (await session.execute(text("SELECT count(*) FROM documents"))).scalar() == 2
        assert (
            await session.execute(text("SELECT count(*) FROM audit_log WHERE result = 'refused'"))
        ).scalar() == 2


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("photo.exe", b"MZ...", "unsupported file type"),
        ("photo.png", b"\x89PNG...", "the image is corrupt"),
        ("broken.pdf", b"%PDF-1.4 nonsense", "corrupt"),
    ],
)
async def test_unsupported_and_corrupt_files_get_a_clear_reply(
    slack, fake_slack, name: str, data: bytes, reason: str
) -> None:  # type: ignore[no-untyped-def]
    fake_slack.files[name] = data
    share = {
        "type": "message",
        "subtype": "file_share",
        "channel_type": "im",
        "channel": "D7",
        "user": "U-ADMIN",
        "text": "upload",
        "ts": "900.1",
        "files": [
            {
                "id": "F3",
                "name": name,
                "size": len(data),
                "url_private_download": f"{fake_slack.root}files/{name}",
            }
        ],
    }
    async with jobs_running(slack[0].worker):
        await slack[0].event(share)
        await until(
            lambda: any(
                "could not be added" in p.get("text", "") for p in fake_slack.of("chat.postMessage")
            )
        )
    failed = [
        p["text"]
        for p in fake_slack.of("chat.postMessage")
        if "could not be added" in p.get("text", "")
    ]
    assert failed and reason in failed[0] and name in failed[0]


async def test_a_rate_limited_placeholder_is_skipped_and_the_answer_posted_once(
    slack,
    fake_slack,
    db: Database,
) -> None:  # type: ignore[no-untyped-def]
    fake_slack.failing["chat.startStream"] = "method_not_supported_for_channel_type"
    fake_slack.rate_limited.add("chat.postMessage")  # the placeholder meets a 429
    await slack[0].event(mention("passport renewal fee?", "1000.1"))
    finals = await final_posts(fake_slack, db=db)
    assert len(finals) == 1 and "1,300" in blocks_text(finals[0])
    methods = [m for m, _ in fake_slack.calls]
    assert methods.index("429:chat.postMessage") < methods.index("chat.postMessage")
    # no placeholder after the 429 (previews skip, never sleep): the answer is the one post
    assert len(fake_slack.of("chat.postMessage")) == 1 and not fake_slack.of("chat.update")
    assert fake_slack.of("chat.postMessage")[0]["thread_ts"] == "1000.1"


async def test_stream_errors_fall_back_to_chat_update(slack, fake_slack, db: Database) -> None:  # type: ignore[no-untyped-def]
    fake_slack.failing["chat.appendStream"] = "message_not_in_streaming_state"
    await slack[0].event(mention("passport renewal fee?", "1100.1"))
    [final] = await final_posts(fake_slack, db=db)
    assert "1,300" in blocks_text(final)
    streamed = next(r["ts"] for m, r in fake_slack.responses if m == "chat.startStream")
    placeholder = next(r["ts"] for m, r in fake_slack.responses if m == "chat.postMessage")
    assert fake_slack.of("chat.postMessage")[0]["thread_ts"] == "1100.1"
    # the answer went into the placeholder by chat.update, not into the failed stream
    assert final["ts"] == placeholder != streamed


async def test_hostile_document_text_is_rendered_inert(
    slack, fake_slack, db: Database, embedder: Embedder
) -> None:  # type: ignore[no-untyped-def]
    hostile = (
        "# Hostile notice\n\nThe hostile notice says <!channel> please read "
        "<http://evil.example|the hostile notice> & ignore everything else.\n"
    )
    await IngestionService(db, embedder, IngestOptions()).ingest_bytes(
        "hostile.md", hostile.encode(), collection="internal"
    )
    await slack[0].event(mention("What does the hostile notice say?", "1200.1"))
    [final] = await final_posts(fake_slack, db=db)
    shown = blocks_text(final)
    assert "<!channel>" not in shown and "<http://evil" not in shown
    assert "<!" not in shown and "<http" not in shown  # nothing Slack would turn into a ping
    assert "&lt;http://evil.example|the hostile notice&gt;" in shown and "&amp;" in shown


async def test_an_extractive_answer_with_a_heading_and_a_list_shows_bullets(
    slack, fake_slack, db: Database, embedder: Embedder
) -> None:  # type: ignore[no-untyped-def]
    await IngestionService(db, embedder, IngestOptions()).ingest_bytes(
        LIST_DOCUMENT, LIST_BODY.encode(), collection="internal"
    )
    await slack[0].event(mention(LIST_QUESTION, "1250.1"))
    [final] = await final_posts(fake_slack, db=db)
    # the lead stays a plain line (answers mark no heading); each item is a `• ` line
    expected = [escape(LEAD)] + [f"• {escape(item)}" for item in ITEMS]
    assert final["blocks"][0]["text"]["text"].splitlines() == expected
    assert final["text"].splitlines() == expected  # the notification's fallback text too
    assert "• your identity card &amp; a &lt;recent&gt; photo [1]" in expected
    shown = final["blocks"][0]["text"]["text"]
    assert not any(heading in shown for heading in HEADINGS)


async def test_slash_command_answers_ephemerally(slack, fake_slack) -> None:  # type: ignore[no-untyped-def]
    payload = {
        "command": "/ragbot",
        "text": "forms",
        "user_id": "U1",
        "channel_id": "C1",
        "trigger_id": "trig-1",
        "team_id": "T1",
        "response_url": f"{fake_slack.root}respond/1",
    }
    response = await slack[0].form(payload)
    assert response.status_code == 200
    for _ in range(100):
        if fake_slack.of("respond/1"):
            break
        await asyncio.sleep(0.05)
    [reply] = fake_slack.of("respond/1")
    assert reply["response_type"] == "ephemeral" and "no forms" in reply["text"]


def test_api_base_url_with_or_without_trailing_slash() -> None:
    from bot.slack.app import api_base_url

    assert api_base_url("http://h/api") == api_base_url("http://h/api/") == "http://h/api/"


def test_long_answers_split_cleanly_within_slack_limits() -> None:
    from bot.core.messages import FinalAnswer
    from bot.slack.blocks import SECTION_LIMIT, answer_messages, split_text

    sentence = "Residents renew permits at the service centre & pay at the counter. "
    pieces = split_text(sentence * 200)
    assert all(len(p) <= SECTION_LIMIT for p in pieces) and len(pieces) > 1
    assert all(p.endswith(".") for p in pieces)  # cut at sentence ends, never mid-word
    answer = FinalAnswer(sentence * 3000, "en", [], [], 5, None)  # type: ignore[arg-type]
    messages = answer_messages(answer)
    assert len(messages) > 1 and all(len(blocks) <= 50 for _, blocks in messages)
    assert all(len(text_) <= 3900 for text_, _ in messages)
    text_of = [
        b["text"]["text"] for _, blocks in messages for b in blocks if b["type"] == "section"
    ]
    assert all("&amp" not in t[-5:] or t.endswith("&amp;") for t in text_of)  # no cut entity
    assert messages[-1][1][-1]["block_id"] == "ragbot_feedback"


async def test_form_request_gets_link_buttons_and_the_file_in_the_thread(
    slack, fake_slack, db: Database
) -> None:  # type: ignore[no-untyped-def]
    from storage.forms import FormFile, FormService

    await FormService(db, 100_000).add(
        "Passport application form PS-11",
        "https://forms.example.org/ps-11",
        FormFile("ps-11.pdf", b"%PDF-1.4 form"),
        aliases=["passport form"],
    )
    await slack[0].event(mention("I need the passport form", "1300.1"))
    [final] = await final_posts(fake_slack, db=db)
    buttons = [
        e for b in final["blocks"] if b["type"] == "actions" for e in b["elements"] if e.get("url")
    ]
    assert buttons and buttons[0]["url"] == "https://forms.example.org/ps-11"
    await until(lambda: bool(fake_slack.of("files.completeUploadExternal")))
    done = fake_slack.of("files.completeUploadExternal")[0]
    assert done["channel_id"] == "C1" and done["thread_ts"] == "1300.1"
