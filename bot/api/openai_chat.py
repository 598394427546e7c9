"""`POST /v1/chat/completions` and `GET /v1/models`: the bot as an OpenAI-compatible model.

A chat front-end (Open WebUI, LibreChat, the `openai` client) talks to the bot as to
a model named `ragbot`, with a ragbot API key as its bearer token. The chat's last
user message is the question; the user and assistant messages before it are the
turn's history (the client keeps the conversation: each call is a new one here).
The question takes the path of `POST /api/v1/ask` (`bot.api.waiting`: the inbox,
the key's collections and rate limit, the audit); the answer comes back as a
`chat.completion`, or streamed as `chat.completion.chunk`s ending with
`data: [DONE]`, its sources appended as text and given as `citations`. Errors
have OpenAI's shape (`bot.api.errors`).
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import StreamingResponse
from pydantic import ValidationError

from bot.api.auth import caller, core_of, counted_caller, draining, waiting_of
from bot.api.errors import ApiError, documented
from bot.api.models import AskRequest
from bot.api.openai_shapes import (
    MODEL,
    ChatRequest,
    about,
    chunk,
    completion,
    error_body,
    history_of,
    models,
    sources_text,
)
from bot.api.turns import RELAYED, answer_body, inbound, refusal, turn_failed, with_staff_body
from bot.api.waiting import StreamStopped
from bot.api.whole import chained, first_event, whole_answer
from bot.core.messages import (
    ErrorReply,
    FinalAnswer,
    Grant,
    InboundMessage,
    Outbound,
    Reply,
    Reset,
    Token,
)

router = APIRouter(prefix="/v1", tags=["openai"])
ERRORS = documented(400, 401, 404, 429, 500, 503)
_STREAMING = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@router.get("/models", responses=ERRORS)
async def list_models(grant: Annotated[Grant, Depends(counted_caller)]) -> dict[str, Any]:
    """The one model this server answers as: `ragbot`."""
    return models()


@router.post("/chat/completions", responses=ERRORS)
async def chat_completions(
    request: Request,
    body: ChatRequest,
    grant: Annotated[Grant, Depends(caller)],
    accept_language: Annotated[str | None, Header()] = None,
) -> Any:
    """The chat's last user message answered from the key's collections, the messages
    before it as the history; streamed when `stream` is true."""
    message, conversation = _question(grant, body, accept_language)
    call_id = f"chatcmpl-{uuid.uuid4().hex}"
    waiting, core = waiting_of(request), core_of(request)
    if not body.stream:
        return completion(call_id, await whole_answer(waiting, core, message, conversation))
    events = waiting.ask(message)
    try:
        first = await first_event(events)
    except StreamStopped:
        raise draining() from None
    problem = refusal(first, core.closing)
    if problem is not None:
        await events.aclose()
        raise problem
    return StreamingResponse(
        _chunks(call_id, chained(first, events), events, conversation),
        media_type="text/event-stream",
        headers=_STREAMING,
    )


def _question(
    grant: Grant, body: ChatRequest, accept_language: str | None
) -> tuple[InboundMessage, str]:
    """The core's message of a chat: its last message the question, a new conversation
    holding the chat's earlier turns as its history."""
    if body.model != MODEL:
        raise ApiError(404, "model_not_found", f"The model {body.model!r} does not exist.")
    last = body.messages[-1]
    if last.role != "user" or not last.text().strip():
        raise ApiError(400, "invalid", "The last message must be the user's question.")
    try:
        ask = AskRequest(question=last.text())
    except ValidationError:
        raise ApiError(400, "invalid", "The question is at most 8,000 characters.") from None
    message, conversation = inbound(grant, ask, None, accept_language)
    message = dataclasses.replace(message, offers_people=False)  # no button to press there
    history = history_of(body.messages[:-1])
    return dataclasses.replace(message, history=history), conversation


def _data(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


async def _chunks(
    call_id: str,
    chain: AsyncIterator[Outbound],
    source: AsyncGenerator[Outbound, None],
    conversation: str,
) -> AsyncGenerator[str, None]:
    """The turn's events as chunks: the answer's text as written, then its sources, then a
    last chunk with `finish_reason` and `citations`; an error as OpenAI streams one."""
    yield _data(chunk(call_id, {"role": "assistant", "content": ""}))
    written = False  # answer text sent since the last reset
    try:
        async for event in chain:
            if isinstance(event, Token) and event.text:
                written = True
                yield _data(chunk(call_id, {"content": event.text}))
            elif isinstance(event, Reset) and written:
                # the model failed mid-answer and another answer follows: a chunk cannot be
                # taken back, so the new answer starts on a paragraph of its own
                written = False
                yield _data(chunk(call_id, {"content": "\n\n"}))
            elif isinstance(event, FinalAnswer | Reply) and not isinstance(event, ErrorReply):
                async for line in _ending(call_id, event, written, conversation):
                    yield line
            elif isinstance(event, ErrorReply):
                failed = turn_failed(event)
                yield _data(error_body(failed.status, failed.code, failed.message))
    except StreamStopped:  # the worker shuts down: said, so the client asks again elsewhere
        stopped = draining()
        yield _data(error_body(stopped.status, stopped.code, stopped.message))
    finally:
        await source.aclose()  # a client that left: its turn is stopped
    yield "data: [DONE]\n\n"


async def _ending(
    call_id: str, event: FinalAnswer | Reply, written: bool, conversation: str
) -> AsyncGenerator[str, None]:
    """The chunks that end an answer (or a message relayed to the staff)."""
    if isinstance(event, Reply) and event.kind != RELAYED:
        problem = refusal(event, False) or ApiError(409, event.kind, event.text)
        yield _data(error_body(problem.status, problem.code, problem.message))
        return
    if isinstance(event, FinalAnswer):
        body = answer_body(event, conversation)
    else:
        body = with_staff_body(event, conversation)
    if not written:  # written at once (no model, the answer memory, a refusal): one chunk
        yield _data(chunk(call_id, {"content": body["answer"]}))
    sources = sources_text(body["citations"], body["language"])
    if sources:
        yield _data(chunk(call_id, {"content": sources}))
    yield _data(chunk(call_id, {}, "stop", about(body)))
