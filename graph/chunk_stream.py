"""The model's streamed replies read as plain dicts, for langchain-openai (`graph.models`).

langchain-openai reads a streamed reply through the openai SDK, which builds a
pydantic object from each chunk, and then dumps every one straight back into
the dict it converts: for a one-paragraph answer of 40-odd chunks, most of the
client's CPU for the answer (`python -m bench.llm_stream` measures both ways).
Here the SDK still sends the request (its headers, status errors and timeouts
unchanged); the event stream is parsed here, and langchain gets the dicts it
accepts in place of the objects.

Parsing follows the SDK's: an event's `data:` lines end at a blank line,
`[DONE]` ends the stream (the rest is read so the connection can be reused),
and an event whose JSON carries `error` raises `openai.APIError`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any


class DictStreamCompletions:
    """A chat-completions resource whose streamed replies iterate as dicts; everything
    else (non-streamed calls, `with_raw_response`, ...) is the SDK's own."""

    def __init__(self, completions: Any) -> None:
        self._completions = completions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._completions, name)

    async def create(self, **payload: Any) -> Any:
        """The SDK's `create`; a stream comes back as a `ChunkStream` (sent and checked now,
        as the SDK's stream is: an HTTP error status raises here)."""
        if not payload.get("stream"):
            return await self._completions.create(**payload)
        manager = self._completions.with_streaming_response.create(**payload)
        response = await manager.__aenter__()
        return ChunkStream(manager, response)


class ChunkStream:
    """One streamed reply: an async context manager (closing the response) iterating the
    reply's chunks as dicts."""

    def __init__(self, manager: Any, response: Any) -> None:
        self._manager = manager
        self._response = response

    async def __aenter__(self) -> ChunkStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._manager.__aexit__(*exc)

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[dict[str, Any]]:
        lines = self._response.iter_lines()
        data: list[str] = []
        async for line in lines:
            if line:
                name, _, value = line.partition(":")
                if name == "data":  # event:, id:, retry: and comments carry nothing here
                    data.append(value[1:] if value.startswith(" ") else value)
                continue
            if not data:
                continue
            text, data = "\n".join(data), []
            if text.startswith("[DONE]"):
                async for _ in lines:  # the body's end, so the connection is kept
                    pass
                return
            yield self._chunk(text)
        if data and not data[0].startswith("[DONE]"):  # a last event with no blank line
            yield self._chunk("\n".join(data))

    def _chunk(self, text: str) -> dict[str, Any]:
        import openai

        chunk = json.loads(text)
        if isinstance(chunk, dict) and chunk.get("error"):
            error = chunk["error"]
            message = error.get("message") if isinstance(error, dict) else None
            raise openai.APIError(
                message if isinstance(message, str) and message else "error during streaming",
                self._response.http_response.request,
                body=error,
            )
        for choice in chunk.get("choices") or []:
            # a chunk without a delta still carries its finish reason (langchain skips a
            # choice whose delta is missing)
            if isinstance(choice, dict) and choice.get("delta") is None:
                choice["delta"] = {}
        return chunk  # type: ignore[no-any-return]
