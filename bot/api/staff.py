"""The staff inbox's JSON endpoints: the staff page's cases, its replies and closes.

With HANDOFF_WEB_INBOX the staff page (`/staff`) is a staff room: an admin API
key lists the cases waiting for a person, replies (the reply reaches the
asker's chat as one from a Slack or Telegram room does) and closes. Other keys
get 403; with the inbox off, 404.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request

from bot.api.auth import Caller, admin_only, core_of, poller
from bot.api.errors import ApiError, documented
from bot.api.models import ID_MAX, StaffCase, StaffReply, StaffResult
from bot.core.handoff.staff_inbox import Staffer, StaffInbox
from bot.core.messages import Grant

router = APIRouter(prefix="/api/v1/staff", tags=["hand-off"])
ERRORS = documented(401, 403, 404, 422, 429, 503)
CaseId = Annotated[int, Path(ge=1, le=ID_MAX)]


def staff_inbox_of(request: Request) -> StaffInbox:
    """The staff inbox (404 when it is off), for this page and the admin console's."""
    inbox = core_of(request).staff_inbox
    if not inbox.enabled:
        raise ApiError(404, "staff_inbox_off", "The staff inbox is off (HANDOFF_WEB_INBOX).")
    return inbox


def _inbox(request: Request, grant: Grant) -> StaffInbox:
    """The staff inbox for an admin key (403 for another key, 404 when it is off)."""
    admin_only(grant)
    return staff_inbox_of(request)


def shown_case(case: dict[str, Any]) -> dict[str, Any]:
    """A case as the staff pages show it: its fields, times as ISO text, what was said."""
    return {
        **{k: case[k] for k in ("id", "status", "platform", "language", "question", "outcome")},
        "answer": case.get("answer") or "",
        "claimed_by": case.get("claimed_by"),
        "opened_at": case["created_at"].isoformat(timespec="seconds"),
        "messages": [
            {
                "direction": m["direction"],
                "author": m["author"],
                "text": m["text"],
                "at": m["created_at"].isoformat(timespec="seconds"),
            }
            for m in case["messages"]
        ],
    }


@router.get("/cases", response_model=list[StaffCase], responses=ERRORS)
async def waiting_cases(
    request: Request,
    grant: Annotated[Grant, Depends(poller)],  # the page polls: counted as polls are
) -> list[dict[str, Any]]:
    """The cases waiting for a person, oldest first, with what was said so far."""
    cases = await _inbox(request, grant).cases()
    request.state.audited = False  # a read every few seconds: replies and closes are audited
    return [shown_case(case) for case in cases]


@router.post("/cases/{case_id}/reply", response_model=StaffResult, responses=ERRORS)
async def reply(request: Request, grant: Caller, case_id: CaseId, body: StaffReply) -> Any:
    """Send a reply to the case's asker (the first reply claims the case)."""
    inbox = _inbox(request, grant)
    request_id = body.request_id or uuid.uuid4().hex
    result = await inbox.reply(case_id, Staffer(grant.name), body.text, request_id)
    return {"result": result}


@router.post("/cases/{case_id}/close", response_model=StaffResult, responses=ERRORS)
async def close(request: Request, grant: Caller, case_id: CaseId) -> Any:
    """Close the case: the asker is told the bot answers again."""
    inbox = _inbox(request, grant)
    closed = await inbox.close(case_id, Staffer(grant.name))
    return {"result": "ok" if closed else "closed"}
