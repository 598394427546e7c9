"""Speech to text: a voice message's words, from an OpenAI-compatible transcription endpoint.

STT_BASE_URL names any server speaking OpenAI's shape (OpenAI itself, a local
whisper server): `POST {base}/audio/transcriptions`, multipart with the audio
as `file` and `model`; the reply is `{"text": ...}`. One client per request:
voice messages are few, and a pooled connection to a local server that
restarted would only fail the next one.
"""

from __future__ import annotations

from typing import Any

from graph.rerank import printable, without_userinfo

DEFAULT_MODEL = "whisper-1"  # OpenAI's name; local whisper servers accept or ignore it


class SpeechError(Exception):
    """The endpoint could not transcribe (down, refused, too slow, an answer of no shape)."""


class SpeechToText:
    """The client of one transcription endpoint."""

    def __init__(
        self, base_url: str, model: str | None, api_key: str | None, timeout: float
    ) -> None:
        self.url = base_url.rstrip("/") + "/audio/transcriptions"
        self._model = model or DEFAULT_MODEL
        self._api_key = api_key
        self._timeout = timeout

    @property
    def shown_url(self) -> str:
        """The endpoint as it may be printed (credentials in the URL left out)."""
        return without_userinfo(self.url)

    async def transcribe(self, data: bytes, name: str, mime: str | None) -> str:
        """The words said in `data` (an audio file called `name`); empty when none were.

        SpeechError with a short reason (never the key) when the endpoint fails.
        """
        import httpx  # only a bot that hears voice messages needs the client

        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        try:
            async with httpx.AsyncClient(timeout=self._timeout) as client:
                response = await client.post(
                    self.url,
                    files={"file": (name, data, mime or "application/octet-stream")},
                    data={"model": self._model, "response_format": "json"},
                    headers=headers,
                )
        except httpx.TimeoutException:
            raise SpeechError(f"no answer within {self._timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise SpeechError(f"cannot be reached ({type(exc).__name__})") from None
        if response.status_code != 200:
            detail = printable(response.text[:200])
            raise SpeechError(f"HTTP {response.status_code}: {detail}")
        return _text_of(response)


def _text_of(response: Any) -> str:
    """The transcript in a reply (`{"text": ...}`); SpeechError for any other shape."""
    try:
        body = response.json()
    except ValueError:
        raise SpeechError("the answer is not JSON") from None
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise SpeechError("the answer has no `text`")
    return " ".join(text.split())
