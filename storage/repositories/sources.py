"""Sources and their items (pages, files): stored, listed, seen or missing (never commits)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import Document, Source, SourceItem
from storage.repositories import corrections as corrections_repo
from storage.repositories import documents as docs_repo
from storage.sources.report import FAILED


def sync_lock_key(source_id: int) -> str:
    """The advisory lock a sync of the source holds (and its removal takes)."""
    return f"source-sync:{source_id}"


async def lock_against_sync(session: AsyncSession, source_id: int) -> bool:
    """Take the source's sync lock until the transaction ends; False when a sync holds it."""
    got = await session.scalar(
        text("SELECT pg_try_advisory_xact_lock(hashtextextended(:key, 0))"),
        {"key": sync_lock_key(source_id)},
    )
    return bool(got)


async def collection_in_use(session: AsyncSession, collection: str) -> bool:
    """Whether a document or form is in `collection`, or an API key reads it."""
    found = await session.scalar(
        text(
            "SELECT EXISTS (SELECT 1 FROM documents WHERE collection = :c)"
            " OR EXISTS (SELECT 1 FROM forms WHERE collection = :c)"
            " OR EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL"
            " AND :c = ANY(collections))"
        ),
        {"c": collection},
    )
    return bool(found)


async def get_source(session: AsyncSession, name: str) -> Source | None:
    """The source called `name`, if any."""
    return await session.scalar(select(Source).where(Source.name == name))


async def list_sources(session: AsyncSession) -> list[tuple[Source, int]]:
    """Every source by name, with how many documents it holds."""
    held = (
        select(SourceItem.source_id, func.count(SourceItem.document_id).label("documents"))
        .group_by(SourceItem.source_id)
        .subquery()
    )
    rows = await session.execute(
        select(Source, func.coalesce(held.c.documents, 0))
        .outerjoin(held, held.c.source_id == Source.id)
        .order_by(Source.name)
    )
    return [(source, int(documents)) for source, documents in rows.all()]


async def due_sources(session: AsyncSession, now: datetime) -> Sequence[str]:
    """The names of the sources whose next sync is due at `now`."""
    query = select(Source.name).where(Source.next_sync_at <= now).order_by(Source.next_sync_at)
    return (await session.scalars(query)).all()


async def items(session: AsyncSession, source_id: int) -> Sequence[SourceItem]:
    """Every item of a source."""
    return (
        await session.scalars(select(SourceItem).where(SourceItem.source_id == source_id))
    ).all()


async def save_item(session: AsyncSession, source_id: int, key: str, **values: Any) -> None:
    """Insert or update the item `key` of a source with `values`, seen now (missing: 0)."""
    found = await session.scalar(
        select(SourceItem)
        .where(SourceItem.source_id == source_id, SourceItem.key == key)
        .with_for_update()
    )
    if found is None:
        found = SourceItem(source_id=source_id, key=key)
        session.add(found)
    for name, value in values.items():
        setattr(found, name, value)
    found.missing_count = 0
    found.last_seen_at = func.now()


async def mark_seen(session: AsyncSession, source_id: int, keys: Sequence[str]) -> None:
    """Items found again this sync, unchanged: no longer missing."""
    if keys:
        await session.execute(
            update(SourceItem)
            .where(SourceItem.source_id == source_id, SourceItem.key.in_(list(keys)))
            .values(missing_count=0, last_seen_at=func.now())
        )


async def mark_missing(session: AsyncSession, source_id: int, keys: Sequence[str]) -> None:
    """Items not found this sync: one more miss in a row."""
    if keys:
        await session.execute(
            update(SourceItem)
            .where(SourceItem.source_id == source_id, SourceItem.key.in_(list(keys)))
            .values(missing_count=SourceItem.missing_count + 1)
        )


async def remove_item(session: AsyncSession, source_id: int, key: str) -> str | None:
    """Delete an item and the document it made; that document's title, if it had one."""
    item = await session.scalar(
        select(SourceItem)
        .where(SourceItem.source_id == source_id, SourceItem.key == key)
        .with_for_update()
    )
    if item is None:
        return None
    title = None
    if item.document_id is not None:
        document = await docs_repo.find_by_id(session, item.document_id, lock=True)
        if document is not None:
            title = document.title
            await corrections_repo.document_changed(session, document, corrections_repo.REMOVED)
            await docs_repo.delete_document(session, document)
    await session.execute(delete(SourceItem).where(SourceItem.id == item.id))
    return title


async def documents_of(session: AsyncSession, source_id: int) -> Sequence[Document]:
    """The documents a source's items made."""
    query = (
        select(Document)
        .join(SourceItem, SourceItem.document_id == Document.id)
        .where(SourceItem.source_id == source_id)
        .with_for_update(of=Document)
    )
    return (await session.scalars(query)).all()


async def record_sync(
    session: AsyncSession, source_id: int, status: str, result: dict[str, Any]
) -> None:
    """A sync's outcome, and the next one's time (its schedule from now)."""
    source = await session.get(Source, source_id, with_for_update=True)
    if source is None:  # removed while it synced
        return
    if status == FAILED:  # when the failing began: kept while it goes on failing
        before = source.last_result or {}
        ongoing = source.last_status == FAILED and before.get("failing_since")
        result = {**result, "failing_since": ongoing or datetime.now(UTC).isoformat("T", "seconds")}
    source.last_sync_at = func.now()
    source.next_sync_at = func.now() + timedelta(seconds=source.every_s)
    source.last_status = status
    source.last_result = result


async def health(session: AsyncSession) -> dict[str, object]:
    """How many sources there are, and each whose last sync failed: since when, and why."""
    total = await session.scalar(select(func.count()).select_from(Source))
    query = select(Source).where(Source.last_status == FAILED).order_by(Source.name)
    failing = [
        {
            "name": s.name,
            "since": (s.last_result or {}).get("failing_since")
            or (s.last_sync_at.isoformat("T", "seconds") if s.last_sync_at else None),
            "error": (s.last_result or {}).get("error"),
        }
        for s in (await session.scalars(query)).all()
    ]
    return {"total": int(total or 0), "failing": failing}
