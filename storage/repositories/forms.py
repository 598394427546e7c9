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
    return False


async def list_forms(session: AsyncSession) -> Sequence[Form]:
    """All forms, by name."""
    return (await session.scalars(select(Form).order_by(Form.name))).all()


async def delete_form(session: AsyncSession, name: str) -> bool:
    """Delete a form by name; False when there was none."""
    result = await session.execute(delete(Form).where(Form.name == name))
    return bool(getattr(result, "rowcount", 0))
