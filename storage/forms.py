"""Form links and files: the service admins use to add, list and delete them."""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from storage.db import Database
from storage.models import Form
from storage.repositories import forms as forms_repo
from storage.upload_policy import collection_problem
from textkit.scripts import LANGUAGES, normalise_width, to_simplified
from textkit.tokens import keyword_tokens


class InvalidFormError(ValueError):
    """A form that cannot be saved; the message says why."""


class FormCollectionError(InvalidFormError):
    """The form would land in a collection the saver's audience cannot read; nothing changed."""

    def __init__(self, name: str, collection: str) -> None:
        super().__init__(f"the form {name!r} would be in {collection!r}, outside the readable ones")
        self.name = name
        self.collection = collection


@dataclass(frozen=True)
class SavedForm:
    """What `FormService.save` did: new or replaced, and the collection the form is in."""

    new: bool
    collection: str
    previous_collection: str | None  # before a replacement (None: the form is new)


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
        collection: str = "public",
    ) -> bool:
        """Save a form; True when new, False when it replaced one of the same name."""
        return (await self.save(name, url, file, aliases, language, collection)).new

    async def save(
        self,
        name: str,
        url: str | None,
        file: FormFile | None = None,
        aliases: Sequence[str] | None = (),
        language: str | None = None,
        collection: str | None = "public",
        *,
        keep: bool = False,
        default_collection: str = "public",
        allowed: Sequence[str] | None = None,
    ) -> SavedForm:
        """Save a form, replacing the one of the same name.

        `keep`: what is not given (aliases, language, collection None) stays as the
        replaced form had it; a new form gets no aliases, no language and
        `default_collection`. `allowed`: the collections the saver's audience reads;
        a form that is, or would end up, elsewhere is refused (FormCollectionError)
        and nothing changes. The check and the write are one transaction.
        """
        name = name.strip()
        if not name:
            raise InvalidFormError("a form needs a name")
        if url is None and file is None:
            raise InvalidFormError("a form needs --url or --file (or both)")
        if url is not None and not url.startswith(("http://", "https://")):
            raise InvalidFormError(f"the URL must start with http:// or https:// (got {url!r})")
        if language is not None and language not in LANGUAGES:
            raise InvalidFormError(f"language must be one of {', '.join(LANGUAGES)}")
        problem = collection_problem(collection) if collection is not None else None
        if problem is not None:
            raise InvalidFormError(problem)
        if file is not None and len(file.data) > self._max_bytes:
            raise InvalidFormError(f"the file is over the {self._max_bytes // 2**20} MB limit")
        if file is not None and not file.data:
            raise InvalidFormError("the file is empty")
        async with self._db.transaction() as session:
            existing = await forms_repo.find_for_update(session, name) if keep else None
            if existing is not None and allowed is not None and existing.collection not in allowed:
                raise FormCollectionError(name, existing.collection)  # not theirs to change
            if existing is not None:
                aliases = existing.aliases if aliases is None else aliases
                language = existing.language if language is None else language
                collection = existing.collection if collection is None else collection
            collection = collection or default_collection
            if allowed is not None and collection not in allowed:
                raise FormCollectionError(name, collection)
            form = Form(
                name=name,
                url=url,
                aliases=sorted({a.strip() for a in aliases or () if a.strip()}),
                language=language,
                file_name=file.name if file else None,
                file_mime=(mimetypes.guess_type(file.name)[0] if file else None),
                file_data=file.data if file else None,
                collection=collection,
            )
            before = existing.collection if existing is not None else None
            new = await forms_repo.upsert_form(session, form)
            return SavedForm(new, collection, None if new else before or collection)

    async def list(self, collections: Sequence[str] | None = None) -> Sequence[Form]:
        """All forms (of `collections` when given) by name."""
        async with self._db.sessions() as session:
            return await forms_repo.list_forms(session, collections)

    async def delete(self, name: str, collections: Sequence[str] | None = None) -> bool:
        """Delete a form by name; False when there was none (in `collections`, if given)."""
        async with self._db.transaction() as session:
            return await forms_repo.delete_form(session, name, collections)


def _norm(text: str) -> str:
    return to_simplified(normalise_width(text).lower())


def match_score(query: str, names: Sequence[str]) -> float:
    """How well a request names a form (1.0: a name or alias appears in it)."""
    q = _norm(query)
    q_tokens = set(keyword_tokens(q))
    best = 0.0
    for name in names:
        n = _norm(name)
        if not n:
            continue
        if n in q:
            return 1.0
        n_tokens = set(keyword_tokens(n))
        overlap = len(q_tokens & n_tokens) / len(n_tokens) if n_tokens else 0.0
        best = max(best, overlap, SequenceMatcher(None, n, q).ratio())
    return best


class FormFinder:
    """Fuzzy lookup of forms by name and aliases, in any of the three languages.

    Forms are few (tens), so each lookup reads them all and scores in memory.
    """

    def __init__(self, db: Database, min_score: float = 0.6) -> None:
        self._db = db
        self._min_score = min_score

    async def find(
        self, text: str, limit: int = 3, collections: Sequence[str] | None = None
    ) -> list[Form]:
        """The best-matching forms the asker may see, best first."""
        async with self._db.sessions() as session:
            forms = await forms_repo.list_forms(session, collections)
        scored = [(match_score(text, [f.name, *f.aliases]), f) for f in forms]
        best = max((s for s, _ in scored), default=0.0)
        # Near the best match only: an exact alias hit should not drag in forms
        # that merely share the word "application".
        good = [(s, f) for s, f in scored if s >= self._min_score and s >= best - 0.15]
        return [f for _, f in sorted(good, key=lambda sf: -sf[0])[:limit]]

    async def export(self, name: str, collections: Sequence[str] | None = None) -> FormFile | None:
        """The stored file of form `name`, for an adapter to send; None when there is none."""
        async with self._db.sessions() as session:
            found = await forms_repo.file_of(session, name, collections)
        return FormFile(*found) if found else None
