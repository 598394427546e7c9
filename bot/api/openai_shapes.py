"""OpenAI's chat shapes: the request a chat front-end sends, the completion and chunks it
reads back, its error body; the answer's sources as text a front-end shows.

Only what the answering needs is read: `model`, `messages`, `stream`; the sampling
knobs (temperature, max_tokens, ...) are accepted and ignored, as the bot answers
from its documents its own way.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from textkit.catalog import say

MODEL = "ragbot"
CREATED = 1_764_288_000  # when the model id was first served (2025-11-28), for /v1/models
_LANGUAGES = ("en", "zh-hant", "zh-hans")
# the error `type` a status is given, as OpenAI's clients and front-ends expect them
_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    409: "invalid_request_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
    503: "server_error",
}


class ChatMessage(BaseModel):
    """One message of the chat: text, or a list of parts of which the text ones are read."""

    model_config = ConfigDict(extra="ignore")

    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """The message's text (its text parts joined)."""
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "\n".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


class ChatRequest(BaseModel):
    """`POST /v1/chat/completions`: the whole chat; its last message is the question."""

    model_config = ConfigDict(extra="ignore")

    model: str = Field(description=f"Always {MODEL!r} (GET /v1/models).")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False


def error_body(status: int, code: str, message: str, param: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape: `{"error": {"message", "type", "code", "param"}}`."""
    kind = _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "code": code, "param": param}}


def history_of(messages: list[ChatMessage]) -> tuple[tuple[str, str], ...]:
    """The user and assistant turns before the question, the sources block cut off each
    answer (the bot wrote it; the model reads the answer alone, as it is stored)."""
    turns = []
    for message in messages:
        if message.role not in ("user", "assistant"):
            continue  # a client's system prompt does not steer the bot
        text = message.text()
        if message.role == "assistant":
            text = _without_sources(text)
        if text.strip():
            turns.append((message.role, text))
    return tuple(turns)


def _without_sources(answer: str) -> str:
    for language in _LANGUAGES:
        heading = "\n\n" + say("heading", language, label=say("sources", language)) + "\n"
        if heading in answer:
            return answer[: answer.rindex(heading)]
    return answer


def sources_text(citations: list[dict[str, Any]], language: str) -> str:
    """The answer's sources as a block under it: `[n] title — url` per line ("" for none)."""
    if not citations:
        return ""
    lines = [say("heading", language, label=say("sources", language))]
    for cited in citations:
        title = cited.get("title") or cited.get("document") or ""
        page = f" (p. {cited['page']})" if cited.get("page") else ""
        url = f" — {cited['url']}" if cited.get("url") else ""
        lines.append(f"[{cited['n']}] {title}{page}{url}")
    return "\n\n" + "\n".join(lines)


def about(body: dict[str, Any]) -> dict[str, Any]:
    """What the bot adds to a completion besides its text: `citations` at the top level,
    and under `ragbot` the answer's id, outcome, language and trace."""
    return {
        "citations": body["citations"],
        "ragbot": {
            "answer_id": body["answer_id"],
            "outcome": body["outcome"],
            "language": body["language"],
            "trace_id": body["trace_id"],
        },
    }


def completion(call_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """A whole `chat.completion` of an answered turn (AskResponse's body)."""
    text = body["answer"] + sources_text(body["citations"], body["language"])
    return {
        "id": call_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        **about(body),
    }


def chunk(
    call_id: str,
    delta: dict[str, Any],
    finish: Literal["stop"] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One `chat.completion.chunk` of a stream."""
    return {
        "id": call_id,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **(extra or {}),
    }


def models() -> dict[str, Any]:
    """`GET /v1/models`: the one model, the bot."""
    return {
        "object": "list",
        "data": [{"id": MODEL, "object": "model", "created": CREATED, "owned_by": "ragbot"}],
    }
