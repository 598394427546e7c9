"""Sources that sync, as admin commands: add, list, sync now, remove; each one audited.

A source is a website, a folder or a Confluence space read again on its schedule
into one collection (storage.sources.sync does one sync). Removing a source removes
the documents it made unless they are kept, which leaves them as ordinary documents.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Collection
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import func

from bot.core.admin.audit import Actor, AdminInputError, AuditLog
from storage.db import Database
from storage.models import Source
from storage.repositories import corrections as corrections_repo
from storage.repositories import documents as docs_repo
from storage.repositories import sources as sources_repo
from storage.sources.confluence import confluence_location
from storage.sources.sync import CONFLUENCE, FOLDER, WEB, SourceSyncer, SyncReport
from storage.upload_policy import DEFAULT_COLLECTION, collection_problem

logger = logging.getLogger(__name__)
_EVERY = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
MIN_EVERY_S = 60  # a schedule faster than a minute is a mistake, not a wish


def every_seconds(every: str) -> int:
    """`30m`, `6h`, `1d`, `1w` as seconds; AdminInputError for anything else."""
    found = _EVERY.match(every)
    if found is None:
        raise AdminInputError(f"--every {every!r}: give a number and s, m, h, d or w (e.g. 1d)")
    seconds = int(found.group(1)) * _UNIT_S[found.group(2)]
    if seconds < MIN_EVERY_S:
        raise AdminInputError(f"--every {every!r}: at least one minute")
    return seconds


def every_text(seconds: int) -> str:
    """A schedule as it was given (the largest whole unit)."""
    for unit in ("w", "d", "h", "m"):
        if seconds % _UNIT_S[unit] == 0:
            return f"{seconds // _UNIT_S[unit]}{unit}"
    return f"{seconds}s"


class Sources:
    """The admin part for sources (the operator's CLI and the scheduled job)."""

    def __init__(
        self,
        db: Database,
        log: AuditLog,
        syncer: SourceSyncer,
        readable: Collection[str] = (),
    ) -> None:
        self._db = db
        self.log = log
        self._syncer = syncer
        # the collections the chat platforms are set to read: a source may fill one
        self._readable = frozenset(readable) | {DEFAULT_COLLECTION}
        self._after_sync: list[Callable[[int, SyncReport], Awaitable[None]]] = []

    def on_synced(self, then: Callable[[int, SyncReport], Awaitable[None]]) -> None:
        """Call `then(source id, report)` after each sync (the job queue asks open
        questions again when it added or changed documents)."""
        self._after_sync.append(then)

    async def add(
        self,
        actor: Actor,
        kind: str,
        location: str,
        *,
        name: str | None,
        collection: str,
        every_s: int,
        depth: int = 2,
        max_pages: int = 500,
        space: str | None = None,
    ) -> Source:
        """Store a new source (synced by the first `sources sync` or the schedule)."""
        await self.log.check(actor, "sources:add", name or location)
        if kind == WEB:
            if not location.startswith(("http://", "https://")):
                raise AdminInputError("a web source's URL must start with http:// or https://")
            if _has_login(location):
                raise AdminInputError(
                    "a web source's URL must not hold a user name or password (user:…@host):"
                    " it would show in `sources list` and in every citation's link"
                )
            if not urlsplit(location).hostname:
                raise AdminInputError(f"{location!r} names no website (http://host/path)")
        elif kind == FOLDER:
            folder = Path(location).expanduser()
            if not folder.is_dir():
                raise AdminInputError(f"{location}: no such folder")
            location = str(folder.resolve())
        elif kind == CONFLUENCE:
            if _has_login(location):
                raise AdminInputError(
                    "a Confluence site's URL must not hold a user name or password:"
                    " set CONFLUENCE_USER and CONFLUENCE_API_TOKEN (Cloud) or"
                    " CONFLUENCE_TOKEN (Data Center) instead"
                )
            try:
                location = confluence_location(location, space)
            except ValueError as exc:
                raise AdminInputError(str(exc)) from exc
            login_problem = self._syncer.confluence.problem()
            if login_problem is not None:
                raise AdminInputError(login_problem)
        else:
            raise AdminInputError("a source is web, folder or confluence")
        problem = collection_problem(collection)
        if problem is not None:
            raise AdminInputError(problem)
        name = (name or _default_name(kind, location)).strip()
        if not name:
            raise AdminInputError("a source needs a name (--name)")
        async with self._db.transaction() as session:
            if collection not in self._readable and not await sources_repo.collection_in_use(
                session, collection
            ):
                raise AdminInputError(
                    f"no one reads a collection {collection!r}: no platform is set to"
                    " (SLACK_COLLECTIONS, TELEGRAM_COLLECTIONS, …), no API key and no document"
                    " or form is in it; check its spelling"
                )
            if await sources_repo.get_source(session, name) is not None:
                raise AdminInputError(f"a source named {name!r} exists (`ragbot sources list`)")
            source = Source(
                name=name,
                kind=kind,
                location=location,
                collection=collection,
                every_s=every_s,
                depth=depth,
                max_pages=max_pages,
                next_sync_at=func.now(),
            )
            session.add(source)
        await self.log.audit(actor, "sources:add", name, "ok", f"{kind} {location}")
        return source

    async def list_sources(self, actor: Actor) -> list[dict[str, Any]]:
        """Every source with its schedule, documents and last result."""
        await self.log.check(actor, "sources:list", None)
        async with self._db.sessions() as session:
            rows = await sources_repo.list_sources(session)
        return [_row(source, documents) for source, documents in rows]

    async def sync(self, actor: Actor, name: str | None = None) -> list[tuple[str, SyncReport]]:
        """Sync one source now (all when `name` is None); each one's report."""
        await self.log.check(actor, "sources:sync", name)
        async with self._db.sessions() as session:
            if name is None:
                chosen = [s for s, _ in await sources_repo.list_sources(session)]
            else:
                one = await sources_repo.get_source(session, name)
                if one is None:
                    raise AdminInputError(f"no source named {name!r} (`ragbot sources list`)")
                chosen = [one]
        done = []
        for source in chosen:
            report = await self._syncer.sync(source)
            await self.log.audit(actor, "sources:sync", source.name, report.status, report.error)
            for then in self._after_sync:
                await then(source.id, report)
            done.append((source.name, report))
        return done

    async def sync_due(self, actor: Actor, now: datetime) -> list[tuple[str, SyncReport]]:
        """Sync every source whose next sync time has come (the scheduled job)."""
        async with self._db.sessions() as session:
            due = await sources_repo.due_sources(session, now)
        done = []
        for name in due:
            try:
                done += await self.sync(actor, name)
            except AdminInputError:  # removed meanwhile
                continue
            except Exception:  # one source's bug must not hold back the others
                logger.exception("source %s: the scheduled sync failed", name)
        return done

    async def remove(self, actor: Actor, name: str, keep_documents: bool = False) -> int:
        """Remove a source and (unless kept) its documents; how many documents went."""
        await self.log.check(actor, "sources:remove", name)
        async with self._db.transaction() as session:
            source = await sources_repo.get_source(session, name)
            if source is None:
                raise AdminInputError(f"no source named {name!r} (`ragbot sources list`)")
            # the lock a sync holds: no removal under a sync that is adding documents
            if not await sources_repo.lock_against_sync(session, source.id):
                raise AdminInputError(f"{name!r} is syncing now: remove it once the sync is done")
            removed = 0
            if not keep_documents:
                for document in await sources_repo.documents_of(session, source.id):
                    await corrections_repo.document_changed(session, document, "removed")
                    await docs_repo.delete_document(session, document)
                    removed += 1
            await session.delete(source)
        detail = "documents kept" if keep_documents else f"{removed} documents removed"
        await self.log.audit(actor, "sources:remove", name, "ok", detail)
        return removed


def _has_login(url: str) -> bool:
    """The URL holds a user name or a password (`https://user:secret@host/`)."""
    try:
        return "@" in urlsplit(url).netloc
    except ValueError:  # an unreadable URL is refused by the checks that follow
        return False


def _default_name(kind: str, location: str) -> str:
    if kind in (WEB, CONFLUENCE):
        return re.sub(r"^https?://", "", location).rstrip("/")
    return Path(location).name


def _when(at: datetime | None) -> str | None:
    return at.isoformat(timespec="seconds") if at is not None else None


def _row(source: Source, documents: int) -> dict[str, Any]:
    return {
        "name": source.name,
        "kind": source.kind,
        "location": source.location,
        "collection": source.collection,
        "schedule": every_text(source.every_s),
        "every_s": source.every_s,
        "depth": source.depth if source.kind == WEB else None,
        "max_pages": source.max_pages if source.kind in (WEB, CONFLUENCE) else None,
        "last_sync": _when(source.last_sync_at),
        "next_sync": _when(source.next_sync_at),
        "documents": documents,
        "last_status": source.last_status,
        "last_result": source.last_result,
    }
