"""`ragbot doctor`'s transcription check: one real request to STT_BASE_URL/audio/transcriptions.

Voice messages are optional and typed questions go on without them, so an
endpoint that cannot be used is a warning, not a failure. The request carries
one second of silence (a WAV made here): any working endpoint answers it, with
no words or a few.
"""

from __future__ import annotations

import io
import time
import wave

from bot.cli.llm_probe import Finding
from bot.core.answering.speech import SpeechError, SpeechToText


def silence(seconds: float = 1.0, rate: int = 16_000) -> bytes:
    """`seconds` of silence as a mono 16-bit WAV file."""
    out = io.BytesIO()
    with wave.open(out, "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(2)
        audio.setframerate(rate)
        audio.writeframes(b"\x00\x00" * int(rate * seconds))
    return out.getvalue()


async def probe_stt(
    base_url: str | None, model: str | None, api_key: str | None, timeout: float
) -> list[Finding]:
    """What the configured transcription endpoint answers to one request."""
    if not base_url:
        return [Finding("ok", "no transcription endpoint (STT_BASE_URL): voice messages declined")]
    client = SpeechToText(base_url, model, api_key, timeout)
    started = time.perf_counter()
    try:
        await client.transcribe(silence(), "doctor.wav", "audio/wav")
    except SpeechError as error:
        text = f"transcription at {client.shown_url} cannot be used ({error}): voice is declined"
        return [Finding("warn", text)]
    seconds = time.perf_counter() - started
    text = f"transcription at {client.shown_url} answers: {seconds:.2f} s for 1 s of audio"
    return [Finding("ok", text)]
