"""A photo or a recording as the question over HTTP (`/api/v1/ask/media`, and its stream):
the photo read by real OCR, the recording transcribed by a fake OpenAI-compatible server,
answered through the inbox as a typed question is."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image
from sqlalchemy import text

from storage.embeddings import Embedder
from tests.api.conftest import api_harness
from tests.api.test_stream import events_of
from tests.support.fake_stt import QUESTION, FakeTranscriber
from tests.support.scans import blank_image, text_image
from textkit.catalog import say

AUDIO = b"\x1aE\xdf\xa3" + bytes(range(256)) * 8  # a recording, as a browser sends it (webm)
PAGE = ["How much does an adult", "passport renewal cost?"]


@pytest.fixture
def stt() -> Iterator[FakeTranscriber]:
    fake = FakeTranscriber().start()
    yield fake
    fake.stop()


async def test_a_photo_is_read_and_answered_with_a_citation(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        client = h.client("public")
        response = await client.post(
            "/api/v1/ask/media",
            files={"file": ("question.png", text_image(PAGE), "image/png")},
            data={"kind": "photo"},
        )
        assert response.status_code == 200, response.text
        body = response.json()
        assert "1,300" in body["answer"] and body["outcome"] == "answered"
        assert body["citations"][0]["document"] == "passport" and body["heard"] is None
        # a follow-up in the same conversation, typed: the photo's question is its history
        again = await client.post(
            "/api/v1/ask",
            json={
                "question": "And how long does it take?",
                "conversation_id": body["conversation_id"],
            },
        )
        assert "four working days" in again.json()["answer"]
        blank = await client.post(
            "/api/v1/ask/media",
            files={"file": ("blank.png", blank_image(), "image/png")},
            data={"kind": "photo"},
        )
        assert blank.status_code == 422 and blank.json() == {
            "code": "photo_unread",
            "message": say("media:photo_unread", "en"),
            "field": "file",
        }
        # a question is one picture: a multi-page TIFF is not read page after page
        pages = [Image.open(io.BytesIO(text_image(PAGE))) for _ in range(2)]
        tiff = io.BytesIO()
        pages[0].save(tiff, "TIFF", save_all=True, append_images=pages[1:])
        several = await client.post(
            "/api/v1/ask/media",
            files={"file": ("pages.tif", tiff.getvalue(), "image/tiff")},
            data={"kind": "photo"},
        )
        assert several.status_code == 422 and several.json()["code"] == "photo_unread"


async def test_a_recording_is_heard_then_answered_in_the_stream(
    database_url: str, embedder: Embedder, stt: FakeTranscriber
) -> None:
    async with api_harness(database_url, embedder, STT_BASE_URL=stt.url) as h:
        client = h.client("public")
        form = {"kind": "voice", "language": "en", "seconds": "4"}
        recording = {"file": ("voice.webm", AUDIO, "audio/webm")}
        async with client.stream(
            "POST", "/api/v1/ask/media/stream", files=recording, data=form
        ) as response:
            assert response.status_code == 200
            events = await events_of(response.aiter_lines())
        kinds = [kind for kind, _ in events]
        assert kinds[0] == "heard" and kinds[-1] == "done", events
        heard = events[0][1]
        assert heard == {"text": QUESTION, "message": say("media:heard", "en", text=QUESTION)}
        done = events[-1][1]
        assert "1,300" in done["answer"] and done["citations"][0]["document"] == "passport"
        [request] = stt.requests
        assert request["file"]["data"] == AUDIO
        # the JSON form says what was heard with the answer
        plain = await client.post("/api/v1/ask/media", files=recording, data={"kind": "voice"})
        assert plain.status_code == 200 and plain.json()["heard"] == QUESTION
        async with h.worker.db.sessions() as session:
            asked = (
                (
                    await session.execute(
                        text("SELECT content FROM messages WHERE role = 'user' ORDER BY id")
                    )
                )
                .scalars()
                .all()
            )
        assert asked == [QUESTION, QUESTION]  # the transcript is the question kept


async def test_limits_keys_and_a_missing_endpoint_get_clear_errors(
    database_url: str, embedder: Embedder, stt: FakeTranscriber
) -> None:
    async with api_harness(
        database_url, embedder, STT_BASE_URL=stt.url, STT_MAX_BYTES=2000, STT_MAX_SECONDS=60
    ) as h:
        client = h.client("public")
        voice = {"kind": "voice"}
        big = await client.post(
            "/api/v1/ask/media", files={"file": ("v.webm", AUDIO, "audio/webm")}, data=voice
        )
        assert big.status_code == 413 and big.json()["code"] == "too_large"
        assert big.json()["message"] == say("media:voice_too_big", "en", limit="0.002 MB")
        short = AUDIO[:1000]
        long = await client.post(
            "/api/v1/ask/media",
            files={"file": ("v.webm", short, "audio/webm")},
            data={**voice, "seconds": "61"},
        )
        assert long.status_code == 422 and long.json()["code"] == "voice_unread"
        assert long.json()["message"] == say("media:voice_too_long", "en", limit="1 min")
        nobody = await h.client(None).post(
            "/api/v1/ask/media", files={"file": ("v.webm", short, "audio/webm")}, data=voice
        )
        assert nobody.status_code == 401 and nobody.json()["code"] == "unauthorized"
        odd = await client.post(
            "/api/v1/ask/media", files={"file": ("v.bin", short)}, data={"kind": "video"}
        )
        assert odd.status_code == 422 and odd.json()["field"] == "kind"
        empty = await client.post("/api/v1/ask/media", files={"file": ("v.webm", b"")}, data=voice)
        assert empty.status_code == 422 and empty.json()["field"] == "file"
        huge = await client.post(
            "/api/v1/ask/media",
            files={"file": ("p.png", b"\x89PNG" + b"0" * (21 * 1024 * 1024))},
            data={"kind": "photo"},
        )
        assert huge.status_code == 413 and huge.json()["code"] == "too_large"
        assert stt.requests == []  # nothing over a limit was sent to be transcribed
    async with api_harness(database_url, embedder) as h:  # no STT_BASE_URL
        off = await h.client("public").post(
            "/api/v1/ask/media", files={"file": ("v.webm", AUDIO, "audio/webm")}, data=voice
        )
        assert off.status_code == 422 and off.json()["code"] == "voice_unread"
        assert off.json()["message"] == say("media:no_voice", "en")


async def test_the_web_chat_offers_the_microphone_only_with_a_transcription_endpoint(
    database_url: str, embedder: Embedder, stt: FakeTranscriber
) -> None:
    async with api_harness(database_url, embedder, web_chat=True) as h:
        config = (await h.client(None).get("/chat/config.json")).json()
    assert config["media"]["voice"] is False and config["media"]["photo"] is True
    async with api_harness(
        database_url, embedder, web_chat=True, STT_BASE_URL=stt.url, STT_MAX_SECONDS=90
    ) as h:
        config = (await h.client(None).get("/chat/config.json")).json()
    assert config["media"]["voice"] is True and config["media"]["voice_max_seconds"] == 90
