"""The admin console's JSON endpoints (`/admin/api/…`): documents, gaps, cases, feedback,
figures. Signed in by the session cookie (bot.api.console_auth); every change needs
the page's CSRF token and this site's Origin, and is audited under the key's name.

Documents and uploads go through `Knowledge` as the key's (as over the HTTP API:
its collections, the upload policy and personal-data hold); cases through the
staff inbox; gaps and figures through `Reports`.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Path, Query, Request, UploadFile
from pydantic import BaseModel, Field

from bot.api.auth import core_of
from bot.api.console_auth import Changer, Reader, console_of
from bot.api.errors import ApiError
from bot.api.gate import too_large_message
from bot.api.models import ID_MAX
from bot.api.staff import shown_case, staff_inbox_of
from bot.core.admin.audit import AdminInputError
from bot.core.admin.console import key_actor
from bot.core.admin.console_sessions import ConsoleSession
from bot.core.handoff.staff_inbox import Staffer
from textkit.catalog import LANGUAGES

router = APIRouter(prefix="/admin/api", include_in_schema=False)
CaseId = Annotated[int, Path(ge=1, le=ID_MAX)]


class Publish(BaseModel):
    """An answer for a gap group, to publish as an FAQ entry in `collection`."""

    question: str = Field(min_length=1, max_length=500)
    answer: str = Field(min_length=1, max_length=4000)
    collection: str = Field(min_length=1, max_length=40)


class Check(BaseModel):
    """A gap group's questions, to check against the console's answers in `collection`."""

    questions: list[str] = Field(min_length=1, max_length=50)
    collection: str = Field(min_length=1, max_length=40)


class Reply(BaseModel):
    """A reply to a case's asker."""

    text: str = Field(min_length=1, max_length=4000)
    request_id: str | None = Field(default=None, max_length=64)


def _rejected(exc: AdminInputError) -> ApiError:
    return ApiError(422, "rejected", str(exc))


async def _reads_everything(request: Request, who: ConsoleSession) -> None:
    """Refuse a page of every platform's traffic to a key that does not read every
    collection: its questions and answers may come from collections the key may not see."""
    unread = await console_of(request).unread_collections(who)
    if unread:
        raise ApiError(
            403,
            "not_every_collection",
            "This page shows every platform's questions and answers: it needs an admin key"
            f" that reads every collection (this one does not read {', '.join(unread)}).",
        )


async def _whole_reader(request: Request, who: Reader) -> ConsoleSession:
    await _reads_everything(request, who)
    return who


async def _whole_changer(request: Request, who: Changer) -> ConsoleSession:
    await _reads_everything(request, who)
    return who


WholeReader = Annotated[ConsoleSession, Depends(_whole_reader)]
WholeChanger = Annotated[ConsoleSession, Depends(_whole_changer)]


@router.get("/documents")
async def documents(request: Request, who: Reader) -> list[dict[str, Any]]:
    """The key's collections' documents, with how often each was cited."""
    return await console_of(request).documents(who)


@router.post("/documents", status_code=202)
async def upload(
    request: Request,
    who: Changer,
    file: Annotated[UploadFile, File()],
    title: Annotated[str | None, Form(max_length=300)] = None,
    collection: Annotated[str | None, Form(max_length=40)] = None,
) -> dict[str, int]:
    """Queue a file for ingestion, as an upload over the HTTP API is; follow its job."""
    core = core_of(request)
    limit = core.upload_limit
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, "too_large", too_large_message(limit), "file")
    chosen = collection or who.grant.collections[0]
    if chosen not in who.grant.collections:
        raise ApiError(403, "forbidden", f"This key cannot change collection {chosen!r}.")
    try:
        job = await core.knowledge.upload(
            key_actor(who), file.filename or "upload", data, title=title or None, collection=chosen
        )
    except AdminInputError as exc:
        raise _rejected(exc) from exc
    return {"job_id": job}


@router.get("/jobs/{job_id}")
async def job(request: Request, who: WholeReader, job_id: CaseId) -> dict[str, Any]:
    """An upload's state (the console's own uploads and its published answers)."""
    state = await core_of(request).knowledge.upload_state(who.actor, job_id)
    if state is None:
        raise ApiError(404, "not_found", f"No job {job_id}.")
    return state


@router.delete("/documents")
async def delete(
    request: Request, who: Changer, title: Annotated[str, Query(max_length=300)]
) -> dict[str, str]:
    """Delete a document of the key's collections by title."""
    knowledge = core_of(request).knowledge
    if not await knowledge.delete_document(key_actor(who), title, who.grant.collections):
        raise ApiError(404, "not_found", f"No document titled {title!r}.")
    return {"deleted": title}


@router.get("/gaps")
async def gaps(request: Request, who: WholeReader) -> dict[str, Any]:
    """The refused and handed-off questions of the last 30 days, grouped."""
    return await core_of(request).admin.reports.gaps(who.actor)


@router.post("/answers", status_code=202)
async def publish(request: Request, who: Changer, body: Publish) -> dict[str, Any]:
    """Publish an answer as an FAQ entry of the collection's console document."""
    try:
        return await console_of(request).answers.publish(
            who, body.question, body.answer, body.collection
        )
    except AdminInputError as exc:
        raise _rejected(exc) from exc


@router.get("/answers")
async def published(request: Request, who: Reader) -> list[dict[str, Any]]:
    """The answers published from the console in the key's collections, newest first."""
    return await console_of(request).answers.published(who)


@router.post("/answers/{answer_id}/withdraw")
async def withdraw(request: Request, who: Changer, answer_id: CaseId) -> dict[str, Any]:
    """Withdraw a published answer: the bot stops answering from it, and a later publish
    does not bring it back."""
    try:
        done = await console_of(request).answers.withdraw(who, answer_id)
    except AdminInputError as exc:
        raise _rejected(exc) from exc
    if done is None:
        raise ApiError(404, "not_found", f"No published answer {answer_id}.")
    return done


@router.post("/answers/check")
async def check(request: Request, who: Changer, body: Check) -> dict[str, Any]:
    """How many of a group's questions the console's answers now answer (retrieval check)."""
    try:
        return await console_of(request).answers.check(body.questions, body.collection, who)
    except AdminInputError as exc:
        raise _rejected(exc) from exc


@router.get("/cases")
async def cases(request: Request, who: WholeReader) -> list[dict[str, Any]]:
    """The cases not closed (open and waiting), oldest first, with their conversation."""
    return [shown_case(c) for c in await staff_inbox_of(request).cases()]


@router.post("/cases/{case_id}/reply")
async def reply(
    request: Request, who: WholeChanger, case_id: CaseId, body: Reply
) -> dict[str, str]:
    """Reply to the case's asker through the hand-off desk (the first reply claims it)."""
    request_id = body.request_id or uuid.uuid4().hex
    result = await staff_inbox_of(request).reply(
        case_id, Staffer(who.grant.name), body.text, request_id
    )
    return {"result": result}


@router.post("/cases/{case_id}/close")
async def close(request: Request, who: WholeChanger, case_id: CaseId) -> dict[str, str]:
    """Close the case: the asker is told the bot answers again."""
    closed = await staff_inbox_of(request).close(case_id, Staffer(who.grant.name))
    return {"result": "ok" if closed else "closed"}


@router.get("/feedback")
async def feedback(
    request: Request, who: WholeReader, language: Annotated[str, Query(max_length=10)] = "en"
) -> list[dict[str, Any]]:
    """The newest votes with answer, sources and the decision path in plain words."""
    return await console_of(request).votes(who, language if language in LANGUAGES else "en")


@router.get("/figures")
async def figures(request: Request, who: WholeReader) -> dict[str, Any]:
    """`ragbot stats` over the last days, per day, and the queues `/healthz` shows."""
    return await console_of(request).figures(who)
