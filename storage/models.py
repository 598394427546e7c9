"""SQLAlchemy mappings of the tables Alembic creates (the schema lives in alembic/)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import BigInteger, DateTime, ForeignKey, LargeBinary, SmallInteger, Text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlalchemy.orm import DeclarativeBase, Mapped, deferred, mapped_column


class Base(DeclarativeBase):
    """Declarative base; never used to create tables (Alembic owns the schema)."""


class IndexMeta(Base):
    """The single row describing the vector index and keyword statistics."""

    __tablename__ = "index_meta"
    id: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    embedding_model: Mapped[str | None] = mapped_column(Text)
    embedding_dim: Mapped[int]
    chunk_count: Mapped[int] = mapped_column(BigInteger)
    token_total: Mapped[int] = mapped_column(BigInteger)


class Document(Base):
    """One ingested document; its chunks go with it."""

    __tablename__ = "documents"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    title: Mapped[str] = mapped_column(Text, unique=True)
    source: Mapped[str | None] = mapped_column(Text)
    format: Mapped[str] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(Text, unique=True)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    page_count: Mapped[int | None]
    chunk_count: Mapped[int]
    collection: Mapped[str] = mapped_column(Text, default="public")
    url: Mapped[str | None] = mapped_column(Text)
    # "file", or "case": a staff answer from a hand-off case (storage.origins)
    origin: Mapped[str] = mapped_column(Text, default="file", server_default="file")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")


class Chunk(Base):
    """A passage of a document with its embedding and keyword vector."""

    __tablename__ = "chunks"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    position: Mapped[int]
    text: Mapped[str] = mapped_column(Text)
    page: Mapped[int | None]
    heading: Mapped[str | None] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(Text)
    token_count: Mapped[int]
    # not written since revision 0015 (keyword search reads chunk_terms); a later one drops it
    keywords: Mapped[Any] = mapped_column(TSVECTOR, nullable=True)
    embedding: Mapped[Any] = mapped_column(Vector())
    entry_question: Mapped[str | None] = mapped_column(Text)  # the FAQ entry's question
    question_embedding: Mapped[Any] = mapped_column(Vector(), nullable=True)


class Form(Base):
    """A form people ask for: a link and/or a stored file, found by name or alias."""

    __tablename__ = "forms"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True)
    url: Mapped[str | None] = mapped_column(Text)
    aliases: Mapped[list[str]] = mapped_column(ARRAY(Text), default=list)
    language: Mapped[str | None] = mapped_column(Text)
    file_name: Mapped[str | None] = mapped_column(Text)
    file_mime: Mapped[str | None] = mapped_column(Text)
    # deferred: a form lookup reads names and aliases, never every stored file
    file_data: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))
    collection: Mapped[str] = mapped_column(Text, default="public")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")


class Conversation(Base):
    """A chat, thread or console session on one platform."""

    __tablename__ = "conversations"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    platform: Mapped[str] = mapped_column(Text)
    external_id: Mapped[str] = mapped_column(Text)
    user_id: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")


class Message(Base):
    """One question or answer in a conversation, with what produced it."""

    __tablename__ = "messages"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(Text)
    content: Mapped[str] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(Text)
    intent: Mapped[str | None] = mapped_column(Text)
    citations: Mapped[Any] = mapped_column(JSONB)
    trace_id: Mapped[str | None] = mapped_column(Text)
    details: Mapped[Any] = mapped_column(JSONB)
    blocked: Mapped[bool] = mapped_column(default=False)  # never replayed into history
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")


class Feedback(Base):
    """A thumbs up/down on an answer, linked to its trace."""

    __tablename__ = "feedback"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"))
    user_id: Mapped[str | None] = mapped_column(Text)
    platform: Mapped[str | None] = mapped_column(Text)
    rating: Mapped[int] = mapped_column(SmallInteger)
    comment: Mapped[str | None] = mapped_column(Text)
    trace_id: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")


class ProcessedEvent(Base):
    """A platform event already handled (retries are answered once)."""

    __tablename__ = "processed_events"
    platform: Mapped[str] = mapped_column(Text, primary_key=True)
    event_id: Mapped[str] = mapped_column(Text, primary_key=True)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")
    status: Mapped[str] = mapped_column(Text, default="claimed")  # claimed | done
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(default=1)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class AuditEntry(Base):
    """One admin action, allowed or refused."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")
    platform: Mapped[str] = mapped_column(Text)
    user_id: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(Text)
    target: Mapped[str | None] = mapped_column(Text)
    result: Mapped[str] = mapped_column(Text)  # ok | refused | failed | queued
    detail: Mapped[str | None] = mapped_column(Text)


class Upload(Base):
    """A file an admin sent from chat, waiting for (or done with) its ingestion job."""

    __tablename__ = "uploads"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    platform: Mapped[str] = mapped_column(Text)
    user_id: Mapped[str] = mapped_column(Text)
    conversation_key: Mapped[str | None] = mapped_column(Text)
    file_name: Mapped[str] = mapped_column(Text)
    title: Mapped[str] = mapped_column(Text)
    collection: Mapped[str] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(Text)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes | None] = deferred(mapped_column(LargeBinary))
    status: Mapped[str] = mapped_column(Text, default="queued")
    reason: Mapped[str | None] = mapped_column(Text)
    chunks: Mapped[int | None]
    job_id: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Source(Base):
    """A website, folder or Confluence space that syncs into one collection on a schedule."""

    __tablename__ = "sources"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True)
    kind: Mapped[str] = mapped_column(Text)  # "web" | "folder" | "confluence"
    # the start URL, the folder's path, or a Confluence space's URL (base/spaces/KEY)
    location: Mapped[str] = mapped_column(Text)
    collection: Mapped[str] = mapped_column(Text)
    every_s: Mapped[int]
    depth: Mapped[int] = mapped_column(default=2)
    max_pages: Mapped[int] = mapped_column(default=500)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")
    last_sync_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    next_sync_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default="now()")
    last_status: Mapped[str | None] = mapped_column(Text)  # ok | partial | failed
    last_result: Mapped[Any] = mapped_column(JSONB, nullable=True)


class SourceItem(Base):
    """One page or file of a source: its validators, text hash, document, misses in a row."""

    __tablename__ = "source_items"
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("sources.id", ondelete="CASCADE"))
    # the page's URL, the file's path in the folder, a Confluence page's id URL
    key: Mapped[str] = mapped_column(Text)
    etag: Mapped[str | None] = mapped_column(Text)
    last_modified: Mapped[str | None] = mapped_column(Text)
    content_hash: Mapped[str | None] = mapped_column(Text)
    document_id: Mapped[int | None] = mapped_column(ForeignKey("documents.id", ondelete="SET NULL"))
    links: Mapped[list[str] | None] = mapped_column(ARRAY(Text))  # a crawled page's links
    missing_count: Mapped[int] = mapped_column(default=0)
    last_seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


__all__ = [
    "AuditEntry",
    "Base",
    "Chunk",
    "Conversation",
    "Document",
    "Feedback",
    "Form",
    "IndexMeta",
    "Message",
    "ProcessedEvent",
    "Source",
    "SourceItem",
    "Upload",
]
