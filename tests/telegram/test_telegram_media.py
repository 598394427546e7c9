"""Voice messages and photos are questions: the real PTB Application and serving core against
the fake Bot API (which serves the files), a fake transcription server, and real OCR."""

from __future__ import annotations

import html
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from storage.db import Database
from storage.embeddings import Embedder
from tests.support.core_fixtures import jobs_running, until, until_settled
from tests.support.fake_stt import QUESTION, FakeTranscriber
from tests.support.fake_telegram import (
    FakeTelegram,
    photo_sizes,
    private_media,
    private_text,
    voice,
)
from tests.support.scans import blank_image, text_image
from tests.telegram.test_telegram import answered, docs, fake_tg, start_harness, stop_harness
from textkit.catalog import say

__all__ = ["docs", "fake_tg"]  # fixtures used here
pytestmark = pytest.mark.usefixtures("docs")
AUDIO = b"OggS\x00\x02" + bytes(range(256)) * 8  # what the fake Bot API serves as the voice note


@pytest.fixture
def stt() -> Iterator[FakeTranscriber]:
    fake = FakeTranscriber().start()
    yield fake
    fake.stop()


def said(fake: FakeTelegram, chat_id: int) -> list[str]:
    """The text of every message sent to a chat, as the user reads it."""
    return [html.unescape(p["text"]) for p in fake.of("sendMessage", chat_id, delivered=True)]


async def test_voice_message_is_transcribed_shown_and_answered_with_citation(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram, stt: FakeTranscriber
) -> None:
    user = 3101
    fake_tg.files["voice-1"] = AUDIO
    h = await start_harness(
        database_url,
        embedder,
        fake_tg,
        STT_BASE_URL=stt.url,
        STT_MODEL="whisper-test",
        STT_API_KEY="stt-secret-key",
    )
    try:
        update = private_media(3101, user, "voice", voice("voice-1", 4, len(AUDIO)))
        assert (await h.post(update)).status_code == 200
        [final] = await answered(fake_tg, user)
    finally:
        await stop_harness(h)
    assert "1,300" in final["text"] and "[1]" in final["text"] and "passport" in final["text"]
    heard = say("media:heard", "en", text=QUESTION)
    texts = said(fake_tg, user)
    assert heard in texts and texts.index(heard) < texts.index(html.unescape(final["text"]))
    [request] = stt.requests
    assert request["path"] == "/v1/audio/transcriptions"
    assert request["file"]["data"] == AUDIO and request["model"] == "whisper-test"
    assert request["authorization"] == "Bearer stt-secret-key"


async def test_voice_without_an_endpoint_is_declined_in_one_line(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram, db: Database
) -> None:
    user = 3102
    fake_tg.files["voice-2"] = AUDIO
    h = await start_harness(database_url, embedder, fake_tg)
    try:
        update = private_media(3102, user, "voice", voice("voice-2", 4, len(AUDIO)))
        assert (await h.post(update)).status_code == 200
        await until(lambda: bool(said(fake_tg, user)))
        await until_settled(db)
    finally:
        await stop_harness(h)
    assert said(fake_tg, user) == [say("media:no_voice", "en")]
    assert not fake_tg.downloads  # nothing fetched that could not be heard


async def test_voice_over_the_limits_and_an_endpoint_that_fails_are_told(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram, stt: FakeTranscriber, db: Database
) -> None:
    long_user, big_user, failed_user = 3103, 3104, 3105
    for name in ("long", "big", "failed"):
        fake_tg.files[name] = AUDIO
    stt.status = 500
    h = await start_harness(
        database_url,
        embedder,
        fake_tg,
        STT_BASE_URL=stt.url,
        STT_MAX_SECONDS=60,
        STT_MAX_BYTES=1_000_000,
    )
    try:
        updates = [
            private_media(3103, long_user, "voice", voice("long", 61, len(AUDIO))),
            private_media(3104, big_user, "voice", voice("big", 5, 1_500_000)),
            private_media(3105, failed_user, "voice", voice("failed", 5, len(AUDIO))),
        ]
        for update in updates:  # each taken (200): told, never delivered again
            assert (await h.post(update)).status_code == 200
        await until(lambda: all(said(fake_tg, u) for u in (long_user, big_user, failed_user)))
        await until_settled(db)
    finally:
        await stop_harness(h)
    assert said(fake_tg, long_user) == [say("media:voice_too_long", "en", limit="1 min")]
    assert said(fake_tg, big_user) == [say("media:voice_too_big", "en", limit="1 MB")]
    assert said(fake_tg, failed_user) == [say("media:voice_failed", "en")]
    assert len(stt.requests) == 1  # only the one within the limits was sent to be transcribed
    assert "documents/big" not in fake_tg.downloads and "documents/long" not in fake_tg.downloads


async def test_photo_of_a_question_is_read_and_answered_with_citation(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram, db: Database
) -> None:
    user, blank_user = 3106, 3107
    page = ["How much does an adult", "passport renewal cost?", "My ID is A123456789"]
    fake_tg.files["photo-q"] = text_image(page)
    fake_tg.files["photo-blank"] = blank_image()
    h = await start_harness(database_url, embedder, fake_tg)
    try:
        sizes = photo_sizes("photo-q", len(fake_tg.files["photo-q"]))
        assert (await h.post(private_media(3106, user, "photo", sizes))).status_code == 200
        blank = photo_sizes("photo-blank", len(fake_tg.files["photo-blank"]))
        assert (await h.post(private_media(3107, blank_user, "photo", blank))).status_code == 200
        [final] = await answered(fake_tg, user)
        await until(lambda: bool(said(fake_tg, blank_user)), timeout=60)
        await until_settled(db)
        async with db.sessions() as session:
            kept = await session.scalar(
                text(
                    "SELECT m.content FROM messages m JOIN conversations c"
                    " ON c.id = m.conversation_id WHERE c.platform = 'telegram'"
                    " AND c.external_id = :chat AND m.role = 'user'"
                ),
                {"chat": str(user)},
            )
    finally:
        await stop_harness(h)
    assert "1,300" in final["text"] and "[1]" in final["text"] and "passport" in final["text"]
    # the photo's text is kept as typed text is: personal data masked
    assert "passport renewal" in kept and "[ID]" in kept and "A123456789" not in kept
    assert "documents/photo-q" in fake_tg.downloads  # the largest size, not the thumbnail
    assert said(fake_tg, blank_user) == [say("media:photo_unread", "en")]


async def test_admin_photo_captioned_upload_is_ingested_like_a_document(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    admin = 42  # an admin in the tests' settings
    fake_tg.files["photo-up"] = text_image(
        ["Boat permits", "A boat permit costs 45 dollars a year."]
    )
    h = await start_harness(database_url, embedder, fake_tg)
    try:
        sizes = photo_sizes("photo-up", len(fake_tg.files["photo-up"]))
        async with jobs_running(h.worker):
            await h.post(private_media(3108, admin, "photo", sizes, caption="/upload"))
            await until(lambda: any("was added as" in t for t in said(fake_tg, admin)), 120)
        assert not any(say("media:photo_unread", "en") == t for t in said(fake_tg, admin))
        await h.post(private_text(3109, 3109, "How much is a boat permit?"))
        [final] = await answered(fake_tg, 3109)
    finally:
        await stop_harness(h)
    assert "45 dollars" in final["text"]
