"""`POST /api/v1/ask/media` and `/api/v1/ask/media/stream`: a photo or a recording as the question.

The file comes as multipart `file` with its `kind` (photo | voice) and is handed to the
core as a Telegram photo or voice note is (`bot.core.answering.media`): a photo read by
OCR, a recording transcribed at STT_BASE_URL, then one turn on that text, through the
inbox like `/ask` (the same key rules, rate limits and history). A voice question's
transcript comes first: `heard` in the JSON, a `heard` event in the stream. The body's
size is checked before it is read (`bot.api.gate`), the file's against its kind's
limit here: MAX_FILE_MB for a photo, STT_MAX_BYTES for a recording.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, File, Form, Header, Request, UploadFile
from fastapi.responses import StreamingResponse
from pydantic import Field

from bot.api.ask import answered, streamed
from bot.api.auth import caller, core_of
from bot.api.errors import ApiError, documented
from bot.api.gate import too_large_message
from bot.api.models import CONVERSATION_ID, AskResponse, Language
from bot.api.turns import api_message
from bot.core.messages import Attachment, Grant, InboundMessage
from bot.settings import Settings
from textkit.catalog import say

router = APIRouter(prefix="/api/v1", tags=["ask"])
ERRORS = documented(401, 404, 411, 413, 422, 429, 500, 503)
Kind = Literal["photo", "voice"]
QUESTION_MAX = 2000  # the text sent with the file: a typed question's limit


class MediaAskResponse(AskResponse):
    """An answered photo or recording: the answer as `/ask` gives it, and what was heard."""

    heard: str | None = Field(
        default=None, description="A recording's transcript, which was answered (voice only)."
    )


async def _message(
    request: Request,
    grant: Grant,
    upload: UploadFile,
    kind: Kind,
    question: str | None,
    conversation_id: str | None,
    language: Language | None,
    seconds: int | None,
    accept_language: str | None,
) -> tuple[InboundMessage, str]:
    """The core's message carrying the file (its bytes in hand), and its conversation id."""
    settings: Settings = request.app.state.settings
    limit = core_of(request).upload_limit if kind == "photo" else settings.stt_max_bytes
    try:
        data = await upload.read(limit + 1)  # never more than one byte past the limit
    finally:
        await upload.close()
    if not data:
        raise ApiError(422, "invalid", "The file is empty.", "file")
    if len(data) > limit:
        reader = language or "en"
        said = (
            too_large_message(limit)
            if kind == "photo"
            else say("media:voice_too_big", reader, limit=f"{limit / 1_000_000:g} MB")
        )
        raise ApiError(413, "too_large", said, "file")
    conversation = conversation_id or uuid.uuid4().hex
    attachment = Attachment(
        name=upload.filename or kind,
        size=len(data),
        mime=upload.content_type,
        data=data,
        kind=kind,
        seconds=seconds,
    )
    message = api_message(
        grant,
        conversation,
        uuid.uuid4().hex,  # no Idempotency-Key: a file sent again is asked again
        text=(question or "").strip(),
        language_hint=(accept_language or "").split(",")[0].strip() or None,
        language=language,
        attachments=(attachment,),
    )
    return message, conversation


File_ = Annotated[UploadFile, File(description="The photo (an image) or the recording.")]
KindForm = Annotated[Kind, Form(description="photo: read by OCR; voice: transcribed.")]
QuestionForm = Annotated[
    str | None,
    Form(max_length=QUESTION_MAX, description="Text sent with the file (a photo's caption)."),
]
ConversationForm = Annotated[
    str | None,
    Form(pattern=CONVERSATION_ID, description="A previous answer's id, for a follow-up."),
]
LanguageForm = Annotated[
    Language | None, Form(description="Reply language; default: the question's script.")
]
SecondsForm = Annotated[
    int | None,
    Form(ge=0, le=86_400, description="The recording's length, checked against STT_MAX_SECONDS."),
]


@router.post("/ask/media", response_model=MediaAskResponse, responses=ERRORS)
async def ask_media(
    request: Request,
    grant: Annotated[Grant, Depends(caller)],
    file: File_,
    kind: KindForm,
    question: QuestionForm = None,
    conversation_id: ConversationForm = None,
    language: LanguageForm = None,
    seconds: SecondsForm = None,
    accept_language: Annotated[str | None, Header()] = None,
) -> dict[str, object]:
    """Answer the question a photo or a recording asks, as `/ask` answers a typed one.

    422 `photo_unread` / `voice_unread` when nothing could be read from it (no text on the
    photo, no transcription endpoint, a recording too long or that failed), with the
    reason in `message`; 413 over the size limit of its kind."""
    message, conversation = await _message(
        request, grant, file, kind, question, conversation_id, language, seconds, accept_language
    )
    return await answered(request, message, conversation, kept=False)


@router.post("/ask/media/stream", responses=ERRORS, response_class=StreamingResponse)
async def ask_media_stream(
    request: Request,
    grant: Annotated[Grant, Depends(caller)],
    file: File_,
    kind: KindForm,
    question: QuestionForm = None,
    conversation_id: ConversationForm = None,
    language: LanguageForm = None,
    seconds: SecondsForm = None,
    accept_language: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """The same answer as server-sent events, as `/ask/stream` sends them, with a recording's
    transcript first: `heard` (`{"text", "message"}`: the transcript, and the line saying it)."""
    message, conversation = await _message(
        request, grant, file, kind, question, conversation_id, language, seconds, accept_language
    )
    return await streamed(request, message, conversation, kept=False)
