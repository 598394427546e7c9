"""The model's streamed replies handed to langchain-openai as dicts (`graph.models`).

langchain-openai reads a streamed reply through the openai SDK, which builds a
pydantic object from each chunk, and then dumps every one straight back into
the dict it converts: for a one-paragraph answer of 40-odd chunks, most of the
client's CPU for the answer (`python -m bench.llm_stream` measures both ways).
Here the SDK's own stream is asked for its chunks as the parsed JSON
(`AsyncStream[object]`, which the SDK returns uncast): its request, status
errors, timeouts, event parsing, `[DONE]`, error events, transport errors
(`APIConnectionError`, `APITimeoutError`) and closing are all the SDK's, and
langchain gets the dicts it accepts in place of the objects.

Added on top: events without data (`event: ping`, a lone `retry:`) are
skipped, where the SDK fails on them; a malformed event (not UTF-8 or JSON, not
an object, `choices`, a delta or `usage` of the wrong shape) is an
`openai.APIError`, a provider's failure that is retried or falls back, not a
crash of the turn; a chunk whose choice has no delta keeps its finish reason
(langchain skips a choice without one).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from functools import lru_cache
from typing import Any


class DictStreamCompletions:
    """A chat-completions resource whose streamed replies iterate as dicts; everything
    else (non-streamed calls, `with_raw_response`, ...) is the SDK's own."""

    def __init__(self, completions: Any) -> None:
        self._completions = completions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._completions, name)

    async def create(self, **payload: Any) -> Any:
        """The SDK's `create`; a stream comes back as a `ChunkStream` over the SDK's stream
        (sent and checked now, as the SDK's is: an HTTP error status raises here)."""
        if not payload.get("stream"):
            return await self._completions.create(**payload)
        raw = await self._completions.with_raw_response.create(**payload)
        return ChunkStream(raw.parse(to=_events_class()))


@lru_cache(maxsize=1)
def _events_class() -> Any:
    """`AsyncStream[object]` without the events that carry no data (`event: ping`, a
    lone `retry:` or `id:` line), which the SDK would hand to `json.loads` as "".
    Built once (on first use: the SDK is imported lazily), not per streamed call."""
    from openai import AsyncStream

    class DataEvents(AsyncStream[object]):
        async def _iter_events(self) -> AsyncIterator[Any]:
            async for event in super()._iter_events():
                if event.data.strip():
                    yield event

    return DataEvents


class ChunkStream:
    """One streamed reply: an async context manager (closing the response) iterating the
    reply's chunks as dicts."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def __aenter__(self) -> ChunkStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stream.close()

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[dict[str, Any]]:
        import openai

        request = self._stream.response.request
        try:
            async for chunk in self._stream:
                problem = _malformed(chunk)
                if problem:
                    raise openai.APIError(f"malformed stream event ({problem})", request, body=None)
                for choice in chunk["choices"] or []:
                    if choice.get("delta") is None:
                        choice["delta"] = {}
                yield chunk
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise openai.APIError(f"malformed stream event ({exc})", request, body=None) from exc


def _malformed(chunk: Any) -> str | None:
    """What is wrong with a chunk's shape for langchain's converter (None: nothing)."""
    if not isinstance(chunk, dict):
        return f"a JSON {type(chunk).__name__}"
    chunk.setdefault("choices", [])
    choices, usage = chunk["choices"], chunk.get("usage")
    if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
        return "choices is not a list of objects"
    if any(not isinstance(c.get("delta"), dict | None) for c in choices):
        return "a delta is not an object"
    if not isinstance(usage, dict | None):
        return "usage is not an object"
    return None
