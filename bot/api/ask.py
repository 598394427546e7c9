"""`POST /api/v1/ask` and `/api/v1/ask/stream`: a question answered by the serving core.

The question becomes an InboundMessage of the `api` platform, accepted into the
inbox like every platform's messages (`bot.api.waiting`): stored once (a call
sent again with its `Idempotency-Key` gets the first call's answer, kept with the
delivery; the first call's turn runs to the end even if its client left), rate limited
per key, stored in the conversation's history, traced; the turn's events come
back to the waiting call. The stream speaks the ReAct design's
server-sent events: `reasoning`, `tool_call`, `chunk`, `done`, `error`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import StreamingResponse

from bot.api.auth import caller, core_of, draining, retry_after, waiting_of
from bot.api.errors import ApiError, documented
from bot.api.models import CONVERSATION_ID, AskRequest, AskResponse, Language
from bot.api.turns import (
    HEARD,
    RELAYED,
    answer_body,
    inbound,
    refusal,
    sse_events,
    sse_line,
    turn_failed,
    with_staff_body,
)
from bot.api.waiting import KEPT, StreamStopped
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
from bot.settings import API_PLATFORM

router = APIRouter(prefix="/api/v1", tags=["ask"])
ERRORS = documented(401, 404, 409, 422, 429, 500, 503)
REPLAY_WAIT_S = 3.0  # a call sent again waits this long for its first call's answer
REPLAY_POLL_S = 0.25
IN_PROGRESS_RETRY_S = 2


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
    return await answered(request, message, conversation, idempotency_key is not None)


async def answered(
    request: Request, message: InboundMessage, conversation: str, kept: bool
) -> dict[str, Any]:
    """The JSON of `message`'s turn once it ends (an ApiError instead of an answer);
    a voice question's transcript under `heard`."""
    events = waiting_of(request).ask(message, kept=kept)
    heard: str | None = None
    try:
        async with contextlib.aclosing(events):
            first = await _first(events)
            if first is None and not core_of(request).closing:  # sent before: its answer
                return _succeeded(await _kept(request, message))
            problem = refusal(first, core_of(request).closing)
            if problem is not None:
                raise problem
            last: Outbound | None = None
            # to the end: the delivery is marked answered only when its events are all read
            async for event in _chain(first, events):
                last = event
                if isinstance(event, Reply) and event.kind == HEARD:
                    heard = str(event.data.get("text") or "")
    except StreamStopped:  # this worker shut down under the turn: ask another
        raise draining() from None
    if isinstance(last, FinalAnswer):
        body = answer_body(last, conversation)
        return {**body, "heard": heard} if heard is not None else body
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
    return await streamed(request, message, conversation, idempotency_key is not None)


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
    return await streamed(request, message, conversation, idempotency_key is not None)


_STREAMING = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


async def streamed(
    request: Request, message: InboundMessage, conversation: str, kept: bool
) -> StreamingResponse:
    """`message`'s turn as server-sent events (an ApiError when it is refused at once)."""
    events = waiting_of(request).ask(message, kept=kept)
    try:
        first = await _first(events)
    except StreamStopped:
        raise draining() from None
    if first is None and not core_of(request).closing:  # sent before: its answer again
        await events.aclose()
        answer = _succeeded(await _kept(request, message))
        return StreamingResponse(
            _replayed(answer), media_type="text/event-stream", headers=_STREAMING
        )
    problem = refusal(first, core_of(request).closing)
    if problem is not None:
        await events.aclose()
        raise problem
    return StreamingResponse(
        _sse(_chain(first, events), events, conversation),
        media_type="text/event-stream",
        headers=_STREAMING,
    )


async def _kept(request: Request, message: InboundMessage) -> dict[str, Any]:
    """The answer kept for a call sent again with its Idempotency-Key: {"status", "body"},
    once its first call's turn ends (waited for up to REPLAY_WAIT_S, then 409 `in_progress`
    with Retry-After); 409 `duplicate` when its turn ended with no answer kept."""
    mailbox = core_of(request).mailbox
    deadline = time.monotonic() + REPLAY_WAIT_S
    while True:
        kept = await mailbox.kept_answer(API_PLATFORM, message.delivery_id, KEPT)
        if kept is not None and kept.answer is not None:
            return kept.answer
        if kept is not None and kept.settled:
            raise ApiError(
                409,
                "duplicate",
                "This Idempotency-Key was used before and its turn ended without an answer"
                " to give again (it was stopped or failed): send the question with a new key.",
            )
        if time.monotonic() >= deadline:
            raise ApiError(
                409,
                "in_progress",
                "The call first sent with this Idempotency-Key is still being answered:"
                " send it again after Retry-After seconds for its answer.",
                headers={"Retry-After": str(IN_PROGRESS_RETRY_S)},
            )
        await asyncio.sleep(REPLAY_POLL_S)


def _succeeded(kept: dict[str, Any]) -> dict[str, Any]:
    """The body of a kept answer that succeeded; the first call's error raised again."""
    status, body = int(kept["status"]), dict(kept["body"])
    if status == 200:
        return body
    headers = {"Retry-After": retry_after()} if status == 429 else None
    raise ApiError(status, body["code"], body["message"], body.get("field"), headers=headers)


async def _replayed(body: dict[str, Any]) -> AsyncGenerator[str, None]:
    """A kept answer as a stream: the whole text in one chunk, then `done`."""
    yield sse_line("chunk", {"text": body["answer"]})
    yield sse_line("done", {**body, "sources": body["citations"]})


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
