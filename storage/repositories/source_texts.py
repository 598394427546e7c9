"""A published document's passages in order, as a citation's source view shows them."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import Chunk, Document


@dataclass(frozen=True)
class Passage:
    """One chunk of a document: its id (what a citation points at), page and text."""

    id: int
    page: int | None
    heading: str | None
    text: str


@dataclass(frozen=True)
class SourceText:
    """A document as it is published now: its stored title, link and passages in order."""

    title: str
    url: str | None
    passages: list[Passage]


async def document_collections(session: AsyncSession, titles: list[str]) -> dict[str, str]:
    """The collection each published document of `titles` is in now (absent: none)."""
    if not titles:
        return {}
    rows = await session.execute(
        select(Document.title, Document.collection).where(Document.title.in_(set(titles)))
    )
    return {str(r.title): str(r.collection) for r in rows}


async def source_text(session: AsyncSession, title: str, collection: str) -> SourceText | None:
    """The published document titled `title` with its passages, while it is in
    `collection` (None: no such document there; a replaced document's title finds the
    version in the index now)."""
    document = await session.scalar(
        select(Document).where(Document.title == title, Document.collection == collection)
    )
    if document is None:
        return None
    rows = await session.execute(
        select(Chunk.id, Chunk.page, Chunk.heading, Chunk.text)
        .where(Chunk.document_id == document.id)
        .order_by(Chunk.position, Chunk.id)
    )
    passages = [Passage(int(r.id), r.page, r.heading, str(r.text)) for r in rows]
    return SourceText(document.title, document.url, passages)
