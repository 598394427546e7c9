"""Hand-off for web askers: "Ask a person", the staff's replies, "Back to the bot".

A case is opened as a chat button press opens one (the core's desk checks the
answer is in the caller's conversation); staff answer from their Slack or
Telegram room; their replies wait in the conversation's mailbox for the page
to collect (`GET /api/v1/conversations/{id}/messages?after=N`). While the case
is open, the conversation's questions go to the staff (outcome `with_staff`).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from bot.api.auth import Caller, core_of, poller, waiting_of
from bot.api.errors import ApiError, documented
from bot.api.models import (
    CONVERSATION_ID,
    ID_MAX,
    ConversationRef,
    HandoffRequest,
    HandoffState,
)
from bot.api.turns import api_message, conversation_key
from bot.core.messages import Grant, Reply
from bot.settings import API_PLATFORM

router = APIRouter(prefix="/api/v1", tags=["hand-off"])
ERRORS = documented(401, 403, 404, 422, 429, 503)


def _off(request: Request) -> None:
    if not core_of(request).handoff.enabled:
        raise ApiError(404, "handoff_off", "No staff take questions here (no staff room set).")


async def _state(request: Request, key: str, after: int = 0) -> dict[str, Any]:
    messages, open_case = await core_of(request).mailbox.read(API_PLATFORM, key, after)
    return {"messages": messages, "with_staff": open_case}


@router.post("/handoff", response_model=HandoffState, responses=ERRORS)
async def ask_a_person(request: Request, grant: Caller, body: HandoffRequest) -> dict[str, Any]:
    """Hand an answer's question to a person; their replies come to this conversation."""
    _off(request)
    key = conversation_key(grant, body.conversation_id)
    language = body.language or "en"
    reply: Reply = await core_of(request).handoff.ask(
        API_PLATFORM, grant.name, body.answer_id, key, {"conversation": key}, language
    )
    if reply.kind == "handoff_gone":
        raise ApiError(404, "not_found", reply.text)
    if reply.kind == "not_yours":
        raise ApiError(403, "forbidden", reply.text)
    return await _state(request, key)


@router.get(
    "/conversations/{conversation_id}/messages", response_model=HandoffState, responses=ERRORS
)
async def collect(
    request: Request,
    grant: Annotated[Grant, Depends(poller)],  # polled every few seconds: its own limits
    conversation_id: Annotated[str, Path(pattern=CONVERSATION_ID)],
    after: Annotated[int, Query(ge=0, le=ID_MAX)] = 0,
) -> dict[str, Any]:
    """What the staff sent to this conversation after message `after`."""
    state = await _state(request, conversation_key(grant, conversation_id), after)
    # only a read that hands over staff messages is worth an audit row
    request.state.audited = bool(state["messages"])
    return state


@router.post("/handoff/close", response_model=HandoffState, responses=ERRORS)
async def back_to_the_bot(request: Request, grant: Caller, body: ConversationRef) -> dict[str, Any]:
    """Close this conversation's case: the bot answers again."""
    _off(request)
    delivery = f"close:{uuid.uuid4().hex}"
    message = api_message(
        grant, body.conversation_id, delivery, language=body.language, command="bot"
    )
    key = message.conversation_key
    replies = [event async for event in waiting_of(request).ask(message)]
    if any(isinstance(r, Reply) and r.kind == "handoff_none" for r in replies):
        raise ApiError(404, "not_found", "No open case in this conversation.")
    return await _state(request, key)
