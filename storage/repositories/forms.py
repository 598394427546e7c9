"""Forms: links and stored files people ask for by name or alias."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import Form


async def upsert_form(session: AsyncSession, form: Form) -> bool:
    """Insert a form, or replace the one with the same name. True when it was new."""
    existing = await session.scalar(select(Form).where(Form.name == form.name).with_for_update())
    if existing is None:
        session.add(form)
        return True
    existing.url = form.url
    existing.aliases = form.aliases
    existing.language = form.language
    existing.file_name = form.file_name
    existing.file_mime = form.file_mime
    existing.file_data = form.file_data
    existing.collection = form.collection
    return False


async def find_for_update(session: AsyncSession, name: str) -> Form | None:
    """The form called `name`, locked until the transaction ends (None: there is none)."""
    return await session.scalar(select(Form).where(Form.name == name).with_for_update())


async def list_forms(
    session: AsyncSession, collections: Sequence[str] | None = None
) -> Sequence[Form]:
    """All forms (of `collections` when given), by name; stored files are not loaded."""
    query = select(Form).order_by(Form.name)
    if collections is not None:
        query = query.where(Form.collection.in_(collections))
    return (await session.scalars(query)).all()


async def file_of(
    session: AsyncSession, name: str, collections: Sequence[str] | None = None
) -> tuple[str, bytes] | None:
    """The stored file (name, bytes) of form `name`, or None when it has none."""
    query = select(Form.file_name, Form.file_data).where(
        Form.name == name, Form.file_data.is_not(None)
    )
    if collections is not None:
        query = query.where(Form.collection.in_(collections))
    row = (await session.execute(query)).first()
    if row is None or not row[0] or row[1] is None:
        return None
    return row[0], row[1]


async def delete_form(
    session: AsyncSession, name: str, collections: Sequence[str] | None = None
) -> bool:
    """Delete a form by name (only in `collections`, when given); False when there was none."""
    query = delete(Form).where(Form.name == name)
    if collections is not None:
        query = query.where(Form.collection.in_(collections))
    result = await session.execute(query)
    return bool(getattr(result, "rowcount", 0))
