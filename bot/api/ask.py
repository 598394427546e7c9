"""`POST /api/v1/ask` and `/api/v1/ask/stream`: a question answered by the serving core.

The question becomes an InboundMessage of the `api` platform and runs through
`ServingCore.handle` like a console message: claimed once (an `Idempotency-Key`
makes a retried call a duplicate, answered 409), rate limited per key, stored
in the conversation's history, traced. The stream speaks the ReAct design's
server-sent events: `reasoning`, `tool_call`, `chunk`, `done`, `error`.
"""

from __future__ import annotations

import contextlib
import json
import re
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import StreamingResponse

from bot.api.auth import DRAIN_RETRY_S, caller, core_of, too_many
from bot.api.errors import ApiError
from bot.api.models import CONVERSATION_ID, AskRequest, AskResponse, ErrorBody, Language
from bot.core.loops import stream_on_core_loop
from bot.core.messages import (
    Audience,
    ErrorReply,
    FinalAnswer,
    Grant,
    InboundMessage,
    Outbound,
    Progress,
    Queued,
    Reply,
    Reset,
    Token,
)
from bot.settings import API_PLATFORM

router = APIRouter(prefix="/api/v1", tags=["ask"])
RELAYED = "handoff_relayed"  # the core's reply to a message that went to the staff
_IDEMPOTENCY = re.compile(r"[A-Za-z0-9_.:-]{1,100}")
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (401, 404, 409, 422, 429, 500, 503)
}


def inbound(
    grant: Grant, body: AskRequest, idempotency_key: str | None, accept_language: str | None
) -> tuple[InboundMessage, str]:
    """The message the core answers, and the conversation id to give back.

    A conversation belongs to its key: the same id under another key is another
    conversation, so no key reads or continues a conversation of another.
    """
    if idempotency_key is not None and not _IDEMPOTENCY.fullmatch(idempotency_key):
        raise ApiError(422, "invalid", "Idempotency-Key: 1-100 of A-Z a-z 0-9 _ . : -", "headers")
    conversation = body.conversation_id or uuid.uuid4().hex
    message = InboundMessage(
        platform=API_PLATFORM,
        delivery_id=f"{grant.key_id}:{idempotency_key or uuid.uuid4().hex}",
        conversation_key=conversation_key(grant, conversation),
        user_id=grant.name,
        text=body.question,
        language_hint=(accept_language or "").split(",")[0].strip() or None,
        language=body.language,
        audience=Audience(guest=False, verified=True, grant=grant),
        # not a one-to-one chat: every visitor of a website shares its key (and its name)
        top_k=body.top_k,
        threshold=body.threshold,
    )
    return message, conversation


def conversation_key(grant: Grant, conversation: str) -> str:
    """The core's key of a caller's conversation: the API key's id and the caller's id.

    No ':' in it (the core reads "chat:thread" keys as one chat's threads): each
    conversation is a chat of its own, never shared by two visitors of one key.
    """
    return f"{grant.key_id}/{conversation}"


def with_staff_body(reply: Reply, conversation: str) -> dict[str, Any]:
    """The answer to a message relayed to the people on its conversation's open case."""
    return AskResponse.model_validate(
        {
            "answer_id": None,
            "conversation_id": conversation,
            "answer": reply.text,
            "citations": [],
            "forms": [],
            "outcome": "with_staff",
            "language": reply.language,
            "decision_path": ["handoff:relayed"],
            "query": {"original": ""},
            "retrieval_loops": 0,
            "llm_calls": 0,
            "timings_ms": {},
            "trace_id": "",
        }
    ).model_dump()


def answer_body(event: FinalAnswer, conversation: str) -> dict[str, Any]:
    """The JSON of an answered turn (AskResponse's shape)."""
    result = event.result
    return AskResponse.model_validate(
        {
            "answer_id": event.message_id,
            "conversation_id": conversation,
            "answer": event.text,
            "citations": event.citations,
            "forms": event.forms,
            "outcome": result.outcome,
            "language": event.language,
            "decision_path": result.decision_path,
            "query": result.query or {"original": ""},
            "retrieval_loops": result.retrieval_loops,
            "llm_calls": result.llm_calls,
            "timings_ms": result.timings_ms,
            "trace_id": result.trace_id,
            "handoff": event.handoff,
        }
    ).model_dump()


def refusal(event: Outbound | None, draining: bool) -> ApiError | None:
    """The error a call gets instead of an answer (None: the turn is under way)."""
    if event is None and draining:  # the core took nothing more: another worker will
        headers = {"Retry-After": str(DRAIN_RETRY_S)}
        return ApiError(503, "draining", "This worker is shutting down; retry.", headers=headers)
    if event is None:  # claimed before: the same Idempotency-Key was sent again
        return ApiError(409, "duplicate", "This Idempotency-Key was already answered.")
    if isinstance(event, Reply):
        if event.kind == "rate_limited":
            return too_many(event.text)
        if event.kind == RELAYED:
            return None
        return ApiError(409, event.kind, event.text)
    return None


def turn_failed(event: ErrorReply) -> ApiError:
    """A turn that raised: the user-facing text, and the trace to look it up by."""
    return ApiError(500, "turn_failed", event.text)


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
    events = stream_on_core_loop(core_of(request).handle(message))
    async with contextlib.aclosing(events):
        first = await _first(events)
        problem = refusal(first, core_of(request).closing)
        if problem is not None:
            raise problem
        last: Outbound | None = None
        # to the end: the delivery is marked answered only when its events are all read
        async for event in _chain(first, events):
            last = event
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
    events = stream_on_core_loop(core_of(request).handle(message))
    first = await _first(events)
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
                yield _sse_line("chunk", {"text": event.text})
            for kind, data in sse_events(event, conversation):
                yield _sse_line(kind, data)
    finally:
        await source.aclose()  # a client that left: the turn on the core's loop is cancelled


def _sse_line(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def sse_events(event: Outbound, conversation: str) -> list[tuple[str, dict[str, Any]]]:
    """The server-sent events one core event becomes."""
    if isinstance(event, Progress):
        out: list[tuple[str, dict[str, Any]]] = [
            ("reasoning", {"step": event.step, "text": event.text})
        ]
        return out + [("tool_call", dict(call)) for call in event.tools]
    if isinstance(event, Queued):
        return [("reasoning", {"step": "queued", "text": event.text})]
    if isinstance(event, Token):
        return [("chunk", {"text": event.text})]
    if isinstance(event, Reset):  # the model failed mid-answer: another answer follows
        return [("chunk", {"text": "", "reset": True})]
    if isinstance(event, FinalAnswer):
        body = answer_body(event, conversation)
        return [("done", {**body, "sources": body["citations"]})]
    if isinstance(event, ErrorReply):
        return [("error", {"code": "turn_failed", "message": event.text, "field": None})]
    assert isinstance(event, Reply)
    if event.kind == RELAYED:
        body = with_staff_body(event, conversation)
        return [("done", {**body, "sources": []})]
    return [("error", {"code": event.kind, "message": event.text, "field": None})]


async def _chain(first: Outbound | None, rest: AsyncIterator[Outbound]) -> AsyncIterator[Outbound]:
    if first is not None:
        yield first
    async for event in rest:
        yield event
