"""`GET /api/v1/conversations/{id}/history`: a conversation's questions and answers again.

The web chat shows them after a reload. A conversation belongs to its key and its
id (`bot.api.turns.conversation_key`): another key, or an id the caller was not
given, finds nothing (404), so the id, hard to guess, is all that opens it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field

from bot.api.auth import Caller, core_of
from bot.api.errors import ApiError, documented
from bot.api.models import CONVERSATION_ID
from bot.api.turns import conversation_key
from bot.settings import API_PLATFORM

router = APIRouter(prefix="/api/v1", tags=["ask"])
ERRORS = documented(401, 404, 422, 429, 503)
HISTORY_MAX = 100  # messages: a page reloaded shows this many at most


class ShownMessage(BaseModel):
    """A question (`role` user) or an answer (`role` assistant) as its asker saw it."""

    role: str
    text: str
    language: str | None = None
    citations: list[dict[str, Any]] = Field(default_factory=list)
    answer_id: int | None = Field(default=None, description="An answer's id (for votes).")
    outcome: str | None = Field(default=None, description="An answer's outcome, as `done`'s.")


class ConversationHistory(BaseModel):
    """A conversation's last messages, oldest first."""

    conversation_id: str
    messages: list[ShownMessage]


@router.get(
    "/conversations/{conversation_id}/history",
    response_model=ConversationHistory,
    responses=ERRORS,
)
async def history(
    request: Request,
    grant: Caller,
    conversation_id: Annotated[str, Path(pattern=CONVERSATION_ID)],
    limit: Annotated[int, Query(ge=1, le=HISTORY_MAX)] = 40,
) -> dict[str, Any]:
    """This key's conversation `conversation_id`: its last `limit` questions and answers
    (blocked ones left out). 404 when this key has no such conversation."""
    key = conversation_key(grant, conversation_id)
    # sources link only into the collections this key reads now
    shown = await core_of(request).answered.history(API_PLATFORM, key, limit, grant.collections)
    if shown is None:
        raise ApiError(404, "not_found", "No such conversation.")
    return {"conversation_id": conversation_id, "messages": shown}
