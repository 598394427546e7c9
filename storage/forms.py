"""Form links and files: the service admins use to add, list and delete them."""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from dataclasses import dataclass

from storage.db import Database
from storage.models import Form
from storage.repositories import forms as forms_repo
from storage.text import LANGUAGES


class InvalidFormError(ValueError):
    """A form that cannot be saved; the message says why."""


@dataclass(frozen=True)
class FormFile:
    """A file attached to a form."""

    name: str
    data: bytes


class FormService:
    """Adds (or replaces), lists and deletes forms, one transaction each."""

    def __init__(self, db: Database, max_bytes: int) -> None:
        self._db = db
        self._max_bytes = max_bytes

    async def add(
        self,
        name: str,
        url: str | None,
        file: FormFile | None = None,
        aliases: Sequence[str] = (),
        language: str | None = None,
    ) -> bool:
        """Save a form; True when new, False when it replaced one of the same name."""
        name = name.strip()
        if not name:
            raise InvalidFormError("a form needs a name")
        if url is None and file is None:
            raise InvalidFormError("a form needs --url or --file (or both)")
        if url is not None and not url.startswith(("http://", "https://")):
            raise InvalidFormError(f"the URL must start with http:// or https:// (got {url!r})")
        if language is not None and language not in LANGUAGES:
            raise InvalidFormError(f"language must be one of {', '.join(LANGUAGES)}")
        if file is not None and len(file.data) > self._max_bytes:
            raise InvalidFormError(f"the file is over the {self._max_bytes // 2**20} MB limit")
        if file is not None and not file.data:
            raise InvalidFormError("the file is empty")
        form = Form(
            name=name,
            url=url,
            aliases=sorted({a.strip() for a in aliases if a.strip()}),
            language=language,
            file_name=file.name if file else None,
            file_mime=(mimetypes.guess_type(file.name)[0] if file else None),
            file_data=file.data if file else None,
        )
        async with self._db.transaction() as session:
            return await forms_repo.upsert_form(session, form)

    async def list(self) -> Sequence[Form]:
        """All forms by name."""
        async with self._db.sessions() as session:
            return await forms_repo.list_forms(session)

    async def delete(self, name: str) -> bool:
        """Delete a form by name; False when there was none."""
        async with self._db.transaction() as session:
            return await forms_repo.delete_form(session, name)
