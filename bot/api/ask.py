"""`POST /api/v1/ask` and `/api/v1/ask/stream`: a question answered by the serving core.

The question becomes an InboundMessage of the `api` platform, accepted into the
inbox like every platform's messages (`bot.api.waiting`): stored once (an
`Idempotency-Key` makes a retried call a duplicate, answered 409), rate limited
per key, stored in the conversation's history, traced; the turn's events come
back to the waiting call. The stream speaks the ReAct design's
server-sent events: `reasoning`, `tool_call`, `chunk`, `done`, `error`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import StreamingResponse

from bot.api.auth import caller, core_of, draining, waiting_of
from bot.api.errors import ApiError, documented
from bot.api.models import CONVERSATION_ID, AskRequest, AskResponse, Language
from bot.api.turns import (
    RELAYED,
    answer_body,
    inbound,
    refusal,
    sse_events,
    sse_line,
    turn_failed,
    with_staff_body,
)
from bot.api.waiting import StreamStopped
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

router = APIRouter(prefix="/api/v1", tags=["ask"])
ERRORS = documented(401, 404, 409, 422, 429, 500, 503)


async def _first(events: AsyncIterator[Outbound]) -> Outbound | None:
    async for event in events:
        return event
    return None


@router.post("/ask", response_model=AskResponse, responses=ERRORS)
async def ask(
    request: Request,
    body: AskRequest,
    grant: Annotated[Grant, Depends(caller)],
    idempotency_key: Annotated[str | None, Header()] = None,
    accept_language: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    """Answer a question: the answer, its citations and forms, and how it was reached."""
    message, conversation = inbound(grant, body, idempotency_key, accept_language)
    events = waiting_of(request).ask(message)
    try:
        async with contextlib.aclosing(events):
            first = await _first(events)
            problem = refusal(first, core_of(request).closing)
            if problem is not None:
                raise problem
            last: Outbound | None = None
            # to the end: the delivery is marked answered only when its events are all read
            async for event in _chain(first, events):
                last = event
    except StreamStopped:  # this worker shut down under the turn: ask another
        raise draining() from None
    if isinstance(last, FinalAnswer):
        return answer_body(last, conversation)
    if isinstance(last, Reply) and last.kind == RELAYED:
        return with_staff_body(last, conversation)
    if isinstance(last, ErrorReply):
        raise turn_failed(last)
    raise ApiError(500, "internal", "The turn ended without an answer.")


@router.post("/ask/stream", responses=ERRORS, response_class=StreamingResponse)
async def ask_stream(
    request: Request,
    body: AskRequest,
    grant: Annotated[Grant, Depends(caller)],
    idempotency_key: Annotated[str | None, Header()] = None,
    accept_language: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """The answer as server-sent events: `reasoning` and `tool_call` as the turn works,
    `chunk` as the answer is written, then `done` (the whole answer, `sources`) or
    `error`. Closing the connection stops the turn."""
    message, conversation = inbound(grant, body, idempotency_key, accept_language)
    return await _stream(request, message, conversation)


@router.get("/ask/stream", responses=ERRORS, response_class=StreamingResponse)
async def ask_stream_get(
    request: Request,
    grant: Annotated[Grant, Depends(caller)],
    question: Annotated[str, Query(min_length=1, max_length=8000)],
    conversation_id: Annotated[str | None, Query(pattern=CONVERSATION_ID)] = None,
    language: Language | None = None,
    top_k: Annotated[int | None, Query(ge=1, le=20)] = None,
    threshold: Annotated[float | None, Query(ge=0.0, le=1.0)] = None,
    idempotency_key: Annotated[str | None, Header()] = None,
    accept_language: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """The same stream, asked with query parameters (the ReAct design's GET)."""
    body = AskRequest(
        question=question,
        conversation_id=conversation_id,
        language=language,
        top_k=top_k,
        threshold=threshold,
    )
    message, conversation = inbound(grant, body, idempotency_key, accept_language)
    return await _stream(request, message, conversation)


async def _stream(
    request: Request, message: InboundMessage, conversation: str
) -> StreamingResponse:
    events = waiting_of(request).ask(message)
    try:
        first = await _first(events)
    except StreamStopped:
        raise draining() from None
    problem = refusal(first, core_of(request).closing)
    if problem is not None:
        await events.aclose()
        raise problem
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(
        _sse(_chain(first, events), events, conversation),
        media_type="text/event-stream",
        headers=headers,
    )


async def _sse(
    chain: AsyncIterator[Outbound], source: AsyncGenerator[Outbound, None], conversation: str
) -> AsyncGenerator[str, None]:
    written = False  # answer text sent since the last reset
    try:
        async for event in chain:
            if isinstance(event, Token):
                written = True
            elif isinstance(event, Reset):
                written = False
            elif isinstance(event, FinalAnswer) and not written:
                # an answer written at once (no model, the answer memory, a refusal): one
                # chunk, so a client that shows chunks shows every answer the same way
                yield sse_line("chunk", {"text": event.text})
            for kind, data in sse_events(event, conversation):
                yield sse_line(kind, data)
    except StreamStopped:  # the worker shuts down: said, so the client asks again elsewhere
        stopped = draining()
        yield sse_line("error", {"code": stopped.code, "message": stopped.message, "field": None})
    finally:
        await source.aclose()  # a client that left: its turn is stopped


async def _chain(first: Outbound | None, rest: AsyncIterator[Outbound]) -> AsyncIterator[Outbound]:
    if first is not None:
        yield first
    async for event in rest:
        yield event
