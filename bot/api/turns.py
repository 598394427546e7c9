"""A turn as the HTTP API shows it: the message the core answers, and its events as JSON.

`inbound` makes the core's message of an API call (the key's grant, the caller's
conversation); the rest shapes what the core yields: the answer body, the
error a call gets instead (`refusal`), and the server-sent events of a stream.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from bot.api.auth import draining, too_many
from bot.api.errors import ApiError
from bot.api.models import AskRequest, AskResponse
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

RELAYED = "handoff_relayed"  # the core's reply to a message that went to the staff
HEARD = "heard"  # a voice question's transcript, said before its answer
UNREAD = ("photo_unread", "voice_unread")  # a photo or recording that could not be read
# as hard to guess as a conversation id: a kept answer names its conversation, and every
# visitor of a shared (web chat) key could otherwise send another's key and read both
_IDEMPOTENCY = re.compile(r"[A-Za-z0-9_.:-]{16,100}")


def inbound(
    grant: Grant, body: AskRequest, idempotency_key: str | None, accept_language: str | None
) -> tuple[InboundMessage, str]:
    """The message the core answers, and the conversation id to give back.

    A conversation belongs to its key: the same id under another key is another
    conversation, so no key reads or continues a conversation of another.
    """
    if idempotency_key is not None and not _IDEMPOTENCY.fullmatch(idempotency_key):
        raise ApiError(422, "invalid", "Idempotency-Key: 16-100 of A-Z a-z 0-9 _ . : -", "headers")
    conversation = body.conversation_id or uuid.uuid4().hex
    message = api_message(
        grant,
        conversation,
        idempotency_key or uuid.uuid4().hex,
        text=body.question,
        language_hint=(accept_language or "").split(",")[0].strip() or None,
        language=body.language,
        top_k=body.top_k,
        threshold=body.threshold,
    )
    return message, conversation


def api_message(grant: Grant, conversation: str, delivery: str, **fields: Any) -> InboundMessage:
    """A message of the `api` platform from a key's caller in one of its conversations.

    Not a one-to-one chat (`direct` stays false): every visitor of a website shares
    its key, and its name.
    """
    return InboundMessage(
        platform=API_PLATFORM,
        delivery_id=f"{grant.key_id}:{delivery}",
        conversation_key=conversation_key(grant, conversation),
        user_id=grant.name,
        audience=Audience(guest=False, verified=True, grant=grant),
        **fields,
    )


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
            "related_questions": result.related_questions,
        }
    ).model_dump()


def refusal(event: Outbound | None, closing: bool) -> ApiError | None:
    """The error a call gets instead of an answer (None: the turn is under way)."""
    if event is None and closing:  # the core took nothing more: another worker will
        return draining()
    if event is None:  # accepted before: the same Idempotency-Key was sent again
        return ApiError(409, "duplicate", "This Idempotency-Key was already answered.")
    if isinstance(event, Reply):
        if event.kind == "rate_limited":
            return too_many(event.text)
        if event.kind in (RELAYED, HEARD):
            return None
        if event.kind in UNREAD:  # the file sent cannot be asked: said why, in one line
            return ApiError(422, event.kind, event.text, "file")
        return ApiError(409, event.kind, event.text)
    return None


def turn_failed(event: ErrorReply) -> ApiError:
    """A turn that raised: the user-facing text, and the trace to look it up by."""
    return ApiError(500, "turn_failed", event.text)


def sse_line(kind: str, data: dict[str, Any]) -> str:
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
    if event.kind == HEARD:
        return [("heard", {"text": event.data.get("text", ""), "message": event.text})]
    if event.kind == RELAYED:
        body = with_staff_body(event, conversation)
        return [("done", {**body, "sources": []})]
    return [("error", {"code": event.kind, "message": event.text, "field": None})]


def kept(event: Outbound, message: InboundMessage) -> dict[str, Any] | None:
    """What a call sent again with the same Idempotency-Key gets of its turn's last event:
    the first call's status and body (None: the turn ended without either)."""
    conversation = message.conversation_key.partition("/")[2]
    if isinstance(event, FinalAnswer):
        return {"status": 200, "body": answer_body(event, conversation)}
    if isinstance(event, Reply) and event.kind == RELAYED:
        return {"status": 200, "body": with_staff_body(event, conversation)}
    error = turn_failed(event) if isinstance(event, ErrorReply) else refusal(event, False)
    if error is None:
        return None
    return {
        "status": error.status,
        "body": {"code": error.code, "message": error.message, "field": error.field},
    }
