"""Questions said another way: a voice message is transcribed, a photo read by OCR.

The adapter hands the file over as an attachment of kind "voice" or "photo"
(`bot.core.messages.Attachment`); the answerer asks `MediaReader` for its
text and answers that like a typed question, through the same turn (so the
text is masked in history and traces as typed text is). A file that cannot
be read yields one clear line for the asker instead. Nothing here blocks the
event loop: the transcription is an HTTP request, and OCR runs in the sandboxed
parser process (`storage.sandbox`), as an uploaded image's does.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass

from bot.core.answering.speech import SpeechError, SpeechToText
from bot.core.messages import Attachment, InboundMessage
from bot.settings import Settings, reveal
from graph.injection import MAX_CHARS
from textkit.catalog import say

MEDIA_KINDS = ("voice", "photo")
PHOTOS_AT_ONCE = 1  # OCR processes for questions at a time, per serving process
PHOTO_TIMEOUT_S = 60  # a photo question's OCR budget (OCR_TIMEOUT_SECONDS if lower)


@dataclass(frozen=True)
class Reading:
    """What was read from a voice message or photo: its `text`, or the `notice` telling
    the asker why not (and `reason`, a short word for the log: never the content)."""

    text: str | None = None
    notice: str | None = None
    reason: str = ""


def media_of(message: InboundMessage) -> Attachment | None:
    """The voice message or photo that is `message`'s question, if it is one.

    A photo sent to be added (`/upload` caption) is an upload, not a question.
    """
    if message.command or message.upload_intent:
        return None
    return next((a for a in message.attachments if a.kind in MEDIA_KINDS), None)


def question_text(caption: str, read: str) -> str:
    """The question a photo asks: its caption, then the text on it, within the
    typed-question limit (a photographed page is longer than any typed question:
    its start is kept rather than the whole refused)."""
    joined = "\n\n".join(part for part in (caption.strip(), read.strip()) if part)
    return joined[:MAX_CHARS]


class MediaReader:
    """Reads voice messages (STT_* settings) and photos (the OCR limits) into text."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        # one photo read at a time in this process: each is an OCR process of up to
        # OCR_MEMORY_MB, and anyone holding a key (the web chat's is every visitor's) may
        # send photos; the others wait their turn
        self._reading = asyncio.Semaphore(PHOTOS_AT_ONCE)

    def speech(self) -> SpeechToText | None:
        """The transcription client, or None when no endpoint is configured."""
        s = self._settings
        if not s.stt_base_url:
            return None
        return SpeechToText(s.stt_base_url, s.stt_model, reveal(s.stt_api_key), s.stt_timeout_s)

    async def read(self, attachment: Attachment, language: str) -> Reading:
        """The text of a voice message or photo, or the notice saying why there is none."""
        if attachment.kind == "voice":
            return await self._hear(attachment, language)
        return await self._look(attachment, language)

    async def _hear(self, attachment: Attachment, language: str) -> Reading:
        s = self._settings
        client = self.speech()
        if client is None:
            return Reading(notice=say("media:no_voice", language), reason="no STT_BASE_URL")
        if attachment.seconds is not None and attachment.seconds > s.stt_max_seconds:
            notice = say("media:voice_too_long", language, limit=_minutes(s.stt_max_seconds))
            return Reading(notice=notice, reason="too long")
        too_big = Reading(
            notice=say("media:voice_too_big", language, limit=_megabytes(s.stt_max_bytes)),
            reason="too big",
        )
        limit = min(s.stt_max_bytes, attachment.platform_limit or s.stt_max_bytes)
        if attachment.size is not None and attachment.size > limit:
            return too_big  # refused before downloading
        data = await attachment.read()
        if len(data) > s.stt_max_bytes:  # the platform's figure was missing or wrong
            return too_big
        try:
            words = await client.transcribe(data, attachment.name, attachment.mime)
        except SpeechError as exc:
            return Reading(notice=say("media:voice_failed", language), reason=str(exc))
        if not words:
            return Reading(notice=say("media:voice_empty", language), reason="no words")
        return Reading(text=words)

    async def _look(self, attachment: Attachment, language: str) -> Reading:
        from storage.loaders import UnreadableFileError
        from storage.sandbox import ParseLimits, parse_isolated

        s = self._settings
        unread = Reading(notice=say("media:photo_unread", language), reason="no text")
        limit = attachment.platform_limit
        if attachment.size is not None and limit is not None and attachment.size > limit:
            return unread
        data = await attachment.read()
        if await asyncio.to_thread(_frames, data) > 1:  # a question is one picture
            return Reading(notice=unread.notice, reason="an image of several pages")
        limits = ParseLimits(
            s.parse_memory_mb,
            s.parse_timeout_s,
            s.ingest_nice,
            s.ocr_memory_mb,
            min(s.ocr_timeout_s, PHOTO_TIMEOUT_S),  # a question waits on it, not a job
        )
        try:
            async with self._reading:
                parsed = await parse_isolated(data, "image", limits)
        except UnreadableFileError as exc:
            return Reading(notice=unread.notice, reason=str(exc))
        text = "\n".join(block.text for block in parsed.blocks).strip()
        return Reading(text=text) if text else unread


def _frames(data: bytes) -> int:
    """How many pictures an image file holds (a multi-page TIFF, an animation): read from
    its header, nothing decoded; 1 when it is no image Pillow knows (the OCR says so)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            return int(getattr(image, "n_frames", 1))
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return 1


def _minutes(seconds: int) -> str:
    """A duration limit as people read it: "5 min", "90 s"."""
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:g} MB"
