"""Documents, upload jobs, forms and votes over HTTP: the knowledge admin part, the feedback.

Only admin keys upload or delete; a key sees and changes only its own
collections (a document elsewhere is "not found", as in chat), and a job only
if the key sent its upload.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Path, Request, UploadFile
from starlette import status

from bot.api.auth import Caller, actor, admin_only, core_of
from bot.api.errors import ApiError, documented
from bot.api.gate import too_large_message
from bot.api.models import (
    ID_MAX,
    Deleted,
    Document,
    FeedbackRequest,
    FeedbackResponse,
    FormIn,
    Job,
    UploadAccepted,
)
from bot.api.models import Form as FormOut
from bot.api.turns import conversation_key
from bot.core.admin.audit import AdminInputError
from bot.core.admin.knowledge import Knowledge
from bot.core.messages import Grant
from bot.settings import API_PLATFORM

router = APIRouter(prefix="/api/v1", tags=["knowledge base"])
ERRORS = documented(401, 403, 404, 413, 422, 429, 503)


def _knowledge(request: Request) -> Knowledge:
    """The knowledge base's admin part the app was built with."""
    knowledge: Knowledge = request.app.state.knowledge
    return knowledge


def _writable(grant: Grant, collection: str | None) -> str:
    """The collection a change goes to: one of the key's (default: its first)."""
    chosen = collection or grant.collections[0]
    if chosen not in grant.collections:
        raise ApiError(403, "forbidden", f"This key cannot change collection {chosen!r}.")
    return chosen


@router.get("/documents", response_model=list[Document], responses=ERRORS)
async def list_documents(request: Request, grant: Caller) -> list[dict[str, Any]]:
    """The documents in the key's collections (admin keys)."""
    admin_only(grant)
    knowledge = _knowledge(request)
    return await knowledge.list_documents(actor(grant), grant.collections)


@router.post(
    "/documents",
    response_model=UploadAccepted,
    status_code=status.HTTP_202_ACCEPTED,
    responses={**ERRORS, **documented(411)},
)
async def upload_document(
    request: Request,
    grant: Caller,
    file: Annotated[
        UploadFile,
        File(
            description="PDF, Word, HTML, Markdown, text; an image of text (PNG, JPEG, WebP,"
            " TIFF) is read by OCR."
        ),
    ],
    title: Annotated[str | None, Form(max_length=300)] = None,
    collection: Annotated[str | None, Form(max_length=40)] = None,
) -> UploadAccepted:
    """Queue a file for ingestion, as a chat upload is (admin keys); follow its job."""
    admin_only(grant)
    limit = core_of(request).upload_limit
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise _too_large(limit)
    try:
        upload_id = await _knowledge(request).upload(
            actor(grant),
            file.filename or "upload",
            data,
            title=title,
            collection=_writable(grant, collection),
        )
    except AdminInputError as exc:
        raise ApiError(422, "rejected", str(exc), "file") from exc
    return UploadAccepted(job_id=upload_id)


def _too_large(limit: int) -> ApiError:
    return ApiError(413, "too_large", too_large_message(limit), "file")


@router.delete("/documents/{title}", response_model=Deleted, responses=ERRORS)
async def delete_document(request: Request, grant: Caller, title: str) -> Deleted:
    """Delete a document of the key's collections by title (admin keys)."""
    admin_only(grant)
    knowledge = _knowledge(request)
    if not await knowledge.delete_document(actor(grant), title, grant.collections):
        raise ApiError(404, "not_found", f"No document titled {title!r}.")
    return Deleted(deleted=title)


@router.get("/jobs/{job_id}", response_model=Job, responses=ERRORS)
async def job(
    request: Request, grant: Caller, job_id: Annotated[int, Path(ge=1, le=ID_MAX)]
) -> dict[str, Any]:
    """An upload job this key started (admin keys)."""
    admin_only(grant)
    state = await _knowledge(request).upload_state(actor(grant), job_id)
    if state is None:
        raise ApiError(404, "not_found", f"No job {job_id} of this key.")
    return state


@router.get("/forms", response_model=list[FormOut], responses=ERRORS)
async def list_forms(request: Request, grant: Caller) -> list[dict[str, Any]]:
    """The forms of the key's collections."""
    knowledge = _knowledge(request)
    return await knowledge.list_forms(actor(grant), grant.collections)


@router.post(
    "/forms", response_model=FormOut, status_code=status.HTTP_201_CREATED, responses=ERRORS
)
async def add_form(request: Request, grant: Caller, body: FormIn) -> dict[str, Any]:
    """Add a form link, or replace the one of that name (admin keys)."""
    admin_only(grant)
    knowledge = _knowledge(request)
    where = _writable(grant, body.collection)
    try:
        await knowledge.save_form(actor(grant), body.name, body.url, None, where, grant.collections)
    except ValueError as exc:  # InvalidFormError, FormCollectionError: said as they are
        raise ApiError(422, "rejected", str(exc), "url") from exc
    forms = await knowledge.list_forms(actor(grant), grant.collections)
    return next(f for f in forms if f["name"] == body.name)


@router.delete("/forms/{name}", response_model=Deleted, responses=ERRORS)
async def delete_form(request: Request, grant: Caller, name: str) -> Deleted:
    """Delete a form of the key's collections by name (admin keys)."""
    admin_only(grant)
    knowledge = _knowledge(request)
    if not await knowledge.delete_form(actor(grant), name, grant.collections):
        raise ApiError(404, "not_found", f"No form named {name!r}.")
    return Deleted(deleted=name)


@router.post("/feedback", response_model=FeedbackResponse, responses=ERRORS)
async def feedback(request: Request, grant: Caller, body: FeedbackRequest) -> FeedbackResponse:
    """Vote on an answer of one of this key's conversations (a second vote replaces it)."""
    where = conversation_key(grant, body.conversation_id)
    # the voter is the conversation: a website's visitors share one key, never one vote
    counted = await core_of(request).feedback(
        API_PLATFORM, where, body.answer_id, body.helpful, where
    )
    if not counted:
        raise ApiError(404, "not_found", "No such answer in this conversation.")
    return FeedbackResponse(counted=True)
