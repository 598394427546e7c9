"""Images and audio clips shared with the bot are questions: the real bolt app and serving
core against the fake Slack Web API (which serves the files to the bot's token), a fake
transcription server, and real OCR."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import text

from bot.slack import translate
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.slack.test_slack import (
    SlackHarness,
    blocks_text,
    fake_slack,
    final_posts,
    serve_slack,
    slack_settings,
    stop_slack,
)
from tests.support.core_fixtures import DOCS, make_worker, until
from tests.support.fake_slack import BOT_USER, TOKEN, FakeSlack
from tests.support.fake_stt import QUESTION, FakeTranscriber
from tests.support.scans import blank_image, text_image
from textkit.catalog import say

__all__ = ["fake_slack"]  # fixture used here
AUDIO = b"\x1aE\xdf\xa3" + bytes(range(256)) * 8  # what the fake Slack serves as a clip (webm)
Start = Callable[..., Awaitable[SlackHarness]]


@pytest.fixture
def stt() -> Iterator[FakeTranscriber]:
    fake = FakeTranscriber().start()
    yield fake
    fake.stop()


@pytest.fixture
async def start(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> AsyncIterator[Start]:
    """Starts one app instance with the sample documents and the given settings."""
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode(), collection="internal")
    started: list[SlackHarness] = []

    async def run(**extra: Any) -> SlackHarness:
        settings = slack_settings(fake_slack, **extra)
        harness = await serve_slack(await make_worker(database_url, embedder, settings), settings)
        started.append(harness)
        return harness

    yield run
    for harness in started:
        await stop_slack(harness)


def shared(
    fake: FakeSlack,
    name: str,
    body: bytes,
    mime: str,
    *,
    ts: str,
    user: str = "U1",
    text_: str = "",
    **details: Any,
) -> dict[str, Any]:
    """A DM with one file, as Slack sends it (`file_share`), the file on the fake."""
    fake.files[name] = body
    return {
        "type": "message",
        "subtype": "file_share",
        "channel_type": "im",
        "channel": f"D{ts.replace('.', '')}",
        "user": user,
        "text": text_,
        "ts": ts,
        "files": [
            {
                "id": f"F{ts}",
                "name": name,
                "size": len(body),
                "mimetype": mime,
                "url_private": f"{fake.root}files/{name}",
                "url_private_download": f"{fake.root}files/{name}",
                **details,
            }
        ],
    }


def shown(fake: FakeSlack, channel: str) -> list[str]:
    """What was posted or updated with blocks in `channel`, as the user reads it."""
    return [
        blocks_text(p)
        for m, p in fake.calls
        if m in ("chat.postMessage", "chat.update")
        and p.get("channel") == channel
        and p.get("blocks")
        and not any(b.get("block_id") == "ragbot_stop" for b in p["blocks"])
    ]


def threads(fake: FakeSlack, channel: str) -> set[str]:
    """The threads of every message the bot started in `channel` (posts and streams)."""
    started = fake.of("chat.postMessage") + fake.of("chat.startStream")
    return {str(p.get("thread_ts")) for p in started if p.get("channel") == channel}


def test_images_and_audio_clips_are_questions_unless_sent_to_be_added() -> None:
    def kinds(files: list[dict[str, Any]], text_: str = "", im: bool = True) -> list[str]:
        event = {"channel": "D1", "ts": "1.1", "user": "U1", "text": text_, "files": files}
        if im:
            event["channel_type"] = "im"
        message = translate.inbound_message(event, BOT_USER, _no_fetch)
        return [a.kind for a in message.attachments]

    files = [
        {"name": "a.png", "mimetype": "image/png"},
        {"name": "clip.webm", "mimetype": "audio/webm", "subtype": "slack_audio"},
        {"name": "clip.mp4", "mimetype": "video/mp4", "subtype": "slack_audio"},
        {"name": "film.mp4", "mimetype": "video/mp4", "subtype": "slack_video"},
        {"name": "logo.svg", "mimetype": "image/svg+xml"},
        {"name": "a.pdf", "mimetype": "application/pdf"},
        {"name": "unknown"},
    ]
    assert kinds(files) == ["photo", "voice", "voice", "file", "file", "file", "file"]
    assert kinds(files, im=False) == kinds(files)  # a mention in a channel asks too
    assert set(kinds(files, "upload")) == {"file"}  # an admin's `upload`: documents
    clip = {"name": "c.m4a", "mimetype": "audio/mp4", "duration_ms": 4001}
    event = {"channel": "C1", "ts": "1.1", "user": "U1", "text": "", "files": [clip]}
    [attachment] = translate.inbound_message(event, BOT_USER, _no_fetch).attachments
    assert attachment.seconds == 5


async def _no_fetch(url: str) -> bytes:
    raise AssertionError(f"not downloaded here: {url}")


async def test_a_photo_in_a_dm_is_read_and_answered_in_its_thread_citing_the_document(
    start: Start, fake_slack: FakeSlack, db: Database
) -> None:
    page = ["How much does an adult", "passport renewal cost?", "My ID is A123456789"]
    share = shared(fake_slack, "question.png", text_image(page), "image/png", ts="2100.1")
    slack = await start()
    assert (await slack.event(share)).status_code == 200
    [final] = await final_posts(fake_slack, db=db, timeout=90)
    answer = blocks_text(final)
    assert "1,300" in answer and "[1]" in answer and "passport" in answer
    assert final["channel"] == "D21001" and threads(fake_slack, "D21001") == {"2100.1"}
    assert fake_slack.downloads == [f"Bearer {TOKEN}"]  # the file, with the bot's token
    async with db.sessions() as session:
        kept = await session.scalar(
            text(
                "SELECT m.content FROM messages m JOIN conversations c"
                " ON c.id = m.conversation_id WHERE c.platform = 'slack' AND m.role = 'user'"
            )
        )
        stored = await session.scalar(text("SELECT count(*) FROM uploads"))
    # asked, not added: its text kept as typed text is (personal data masked)
    assert "passport renewal" in kept and "A123456789" not in kept and stored == 0


async def test_an_audio_clip_mentioning_the_bot_is_heard_then_answered_in_the_thread(
    start: Start, fake_slack: FakeSlack, stt: FakeTranscriber, db: Database
) -> None:
    clip = shared(
        fake_slack,
        "audio_message.webm",
        AUDIO,
        "audio/webm",
        ts="2200.1",
        text_=f"<@{BOT_USER}>",
        subtype="slack_audio",
        duration_ms=4200,
    )
    clip.update(type="app_mention", channel="C22", channel_type="channel")
    del clip["subtype"]  # an app_mention event carries the files without the subtype
    slack = await start(STT_BASE_URL=stt.url, STT_MODEL="whisper-test")
    assert (await slack.event(clip)).status_code == 200
    finals = await final_posts(fake_slack, 2, db=db)
    heard = say("media:heard", "en", text=QUESTION)
    texts = shown(fake_slack, "C22")
    assert len(finals) == 2 and texts[0] == heard
    assert "1,300" in texts[1] and "[1]" in texts[1] and "passport" in texts[1]
    assert threads(fake_slack, "C22") == {"2200.1"}
    [request] = stt.requests
    assert request["file"]["data"] == AUDIO and request["model"] == "whisper-test"
    assert fake_slack.downloads == [f"Bearer {TOKEN}"]


async def test_clips_and_photos_that_cannot_be_read_are_told_in_one_line(
    start: Start, fake_slack: FakeSlack, stt: FakeTranscriber, db: Database
) -> None:
    stt.status = 500
    slack = await start(STT_BASE_URL=stt.url, STT_MAX_SECONDS=60, STT_MAX_BYTES=1_000_000)
    events = {
        "long": shared(fake_slack, "l.m4a", AUDIO, "audio/mp4", ts="2301.1", duration_ms=61_000),
        "big": shared(fake_slack, "b.m4a", AUDIO, "audio/mp4", ts="2302.1"),
        "failed": shared(fake_slack, "f.m4a", AUDIO, "audio/mp4", ts="2303.1"),
        "blank": shared(fake_slack, "blank.png", blank_image(), "image/png", ts="2304.1"),
    }
    events["big"]["files"][0]["size"] = 1_500_000
    for event in events.values():
        assert (await slack.event(event)).status_code == 200
    channels = {name: event["channel"] for name, event in events.items()}
    await until(lambda: all(shown(fake_slack, c) for c in channels.values()), timeout=60)
    await final_posts(fake_slack, 4, db=db)
    assert shown(fake_slack, channels["long"]) == [say("media:voice_too_long", "en", limit="1 min")]
    assert shown(fake_slack, channels["big"]) == [say("media:voice_too_big", "en", limit="1 MB")]
    assert shown(fake_slack, channels["failed"]) == [say("media:voice_failed", "en")]
    assert shown(fake_slack, channels["blank"]) == [say("media:photo_unread", "en")]
    assert len(stt.requests) == 1  # only the clip within the limits was sent
    assert len(fake_slack.downloads) == 2  # the failed clip and the photo: nothing else


async def test_a_clip_without_an_endpoint_is_declined_without_downloading(
    start: Start, fake_slack: FakeSlack, db: Database
) -> None:
    slack = await start()
    clip = shared(fake_slack, "c.webm", AUDIO, "audio/webm", ts="2400.1", subtype="slack_audio")
    assert (await slack.event(clip)).status_code == 200
    await final_posts(fake_slack, db=db)
    assert shown(fake_slack, clip["channel"]) == [say("media:no_voice", "en")]
    assert fake_slack.downloads == []
