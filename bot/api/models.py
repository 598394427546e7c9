"""The HTTP API's request and response bodies (the OpenAPI schema is generated from these)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Language = Literal["en", "zh-hant", "zh-hans"]
# a client's conversation id: letters, digits, '-' and '_' (a UUID fits); at least 16 of
# them, as the id is all that keeps one visitor of a shared key out of another's chat
CONVERSATION_ID = r"^[A-Za-z0-9_-]{16,64}$"


class AskRequest(BaseModel):
    """A question, with what the self-corrective design let callers tune."""

    question: str = Field(min_length=1, max_length=8000, description="What the user asked.")
    conversation_id: str | None = Field(
        default=None,
        pattern=CONVERSATION_ID,
        description="Send the id a previous answer returned to ask a follow-up.",
    )
    language: Language | None = Field(
        default=None, description="Reply language; default: the question's script."
    )
    top_k: int | None = Field(
        default=None, ge=1, le=20, description="Passages read per search (SEARCH_TOP_K)."
    )
    threshold: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Relevance bar of the first search; later retries relax it.",
    )


class Citation(BaseModel):
    """A source the answer cites: `[n]` in the answer's text."""

    n: int
    document: str
    title: str | None = Field(
        default=None,
        description="The document's title as the reader sees it: in the answer's Chinese"
        " script (`document` is the stored title, which the other routes take).",
    )
    page: int | None = None
    url: str | None = Field(
        default=None, description="The document's own page (when it was ingested with --url)."
    )
    passage: str | None = Field(default=None, description="The cited passage (cut at 500).")
    chunk: int | None = Field(default=None, description="The id of the cited passage's chunk.")
    source_url: str | None = Field(
        default=None,
        description="A signed link to the source view: the document as published now with"
        " the passage marked, the title in the answer's script; absolute under"
        " PUBLIC_BASE_URL, else relative to this server; expires after SOURCE_LINK_DAYS.",
    )


class QueryHistory(BaseModel):
    """How the question became the final search query (the self-correction's rewrites)."""

    original: str = Field(description="The question as kept (personal data masked).")
    standalone: str | None = Field(default=None, description="A follow-up made to stand alone.")
    final: str | None = Field(default=None, description="The query of the last search.")
    rewrites: list[str] = Field(default_factory=list, description="Earlier queries, in order.")


class AskResponse(BaseModel):
    """One answered turn, as the chat platforms get it."""

    answer_id: int | None = Field(description="Vote on it with POST /api/v1/feedback.")
    conversation_id: str
    answer: str
    citations: list[Citation]
    forms: list[dict[str, Any]]
    outcome: str = Field(
        description="answered, refused, blocked, forms, smalltalk, memory (served again), or"
        " with_staff (the conversation's case is open: the message went to the staff)."
    )
    language: Language
    decision_path: list[str]
    query: QueryHistory
    retrieval_loops: int
    llm_calls: int
    timings_ms: dict[str, float]
    trace_id: str
    handoff: bool = Field(default=False, description="A person can take over (web chat).")
    related_questions: list[str] = Field(
        default_factory=list,
        description="With a refusal: FAQ questions near the one asked, also listed in"
        ' `answer`; send one as the next question, or its place in the list ("2"), to'
        " get its answer.",
    )


class ErrorBody(BaseModel):
    """Every error: a stable `code`, a message for people, the field at fault (422)."""

    code: str
    message: str
    field: str | None = None


ID_MAX = 2**63 - 1  # ids are Postgres bigints


class FeedbackRequest(BaseModel):
    """A vote on an answer of the caller's conversation."""

    answer_id: int = Field(ge=1, le=ID_MAX)
    conversation_id: str = Field(pattern=CONVERSATION_ID)
    helpful: bool


class FeedbackResponse(BaseModel):
    """Whether the vote counts (changing a vote counts too)."""

    counted: bool


class Document(BaseModel):
    """A document in the knowledge base."""

    title: str
    format: str | None = None
    language: str | None = None
    collection: str
    chunks: int
    pages: int | None = None
    source: str | None = None
    url: str | None = None
    added: str


class UploadAccepted(BaseModel):
    """An upload stored and queued: follow it with GET /api/v1/jobs/{job_id}."""

    job_id: int
    status: Literal["queued"] = "queued"


class Job(BaseModel):
    """An upload's ingestion job."""

    id: int
    file: str
    title: str
    collection: str
    status: str = Field(description="queued, running, added, replaced, unchanged, failed, held.")
    chunks: int | None = None
    reason: str | None = None
    received: str


class FormIn(BaseModel):
    """A form link to add (or replace, by name)."""

    name: str = Field(min_length=1, max_length=200)
    url: str = Field(pattern=r"^https?://", max_length=2000)
    collection: str | None = Field(default=None, description="Default: the key's first.")


class Form(BaseModel):
    """A form link."""

    name: str
    url: str | None = None
    aliases: list[str] = Field(default_factory=list)
    language: str | None = None
    file: str | None = None
    collection: str


class Deleted(BaseModel):
    """What a DELETE removed."""

    deleted: str


class HandoffRequest(BaseModel):
    """ "Ask a person" about an answer of the caller's conversation."""

    answer_id: int
    conversation_id: str = Field(pattern=CONVERSATION_ID)
    language: Language | None = None


class ConversationRef(BaseModel):
    """One of the caller's conversations."""

    conversation_id: str = Field(pattern=CONVERSATION_ID)
    language: Language | None = None


class HandoffState(BaseModel):
    """What the staff sent to a conversation (newer than `after`), and whether its case is open."""

    messages: list[dict[str, Any]] = Field(
        description="{id, text, back, at}: pass the last id as `after` next time."
    )
    with_staff: bool


class StaffMessage(BaseModel):
    """A message relayed in a case: the asker's to the staff, or the staff's to the asker."""

    direction: Literal["to_staff", "to_asker"]
    author: str = Field(description="`web:<key name>`, `slack:U…`; an asker's pseudonymous id.")
    text: str
    at: str


class StaffCase(BaseModel):
    """A case waiting for a person (the staff page's row)."""

    id: int
    status: Literal["open", "claimed"]
    platform: str = Field(description="Where the asker is: api (the web chat), slack, telegram.")
    language: str
    question: str = Field(description="As stored (personal data masked).")
    answer: str = Field(description="The bot's reply the asker handed on.")
    outcome: str | None
    claimed_by: str | None
    opened_at: str
    messages: list[StaffMessage]


class StaffReply(BaseModel):
    """What a staff member tells the asker."""

    text: str = Field(min_length=1, max_length=4000)
    request_id: str = Field(
        default="",
        pattern=r"^[A-Za-z0-9_-]{0,64}$",
        description="The page's id of this reply: sent again with it, it is relayed once.",
    )


class StaffResult(BaseModel):
    """What became of a staff reply or close."""

    result: Literal["ok", "ignored", "repeated", "closed"]
