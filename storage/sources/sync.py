"""One sync of a source: read it, re-ingest only what changed, remove what is gone twice.

Unchanged items cost a conditional request (a 304) or a hash comparison and are
not ingested again. A changed item is ingested through the ingestion service as
any upload into its collection is (policy, personal-data screen) and replaces its
document in one transaction. An item not found is removed only when it was not
found on two syncs in a row; an item that fails keeps its document; a source
that cannot be read at all keeps everything.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import text

from storage import origins
from storage.db import Database
from storage.ingestion import ADDED, REPLACED, UNCHANGED, IngestionService, IngestResult
from storage.models import Source, SourceItem
from storage.repositories import documents as docs_repo
from storage.repositories import sources as sources_repo
from storage.sources import web
from storage.sources.confluence import (
    ConfluenceLogin,
    ConfluencePageError,
    ConfluenceReader,
    ConfluenceUnreadableError,
)
from storage.sources.folder import FolderFile, FolderUnreadableError, folder_files
from storage.sources.report import SyncReport
from storage.sources.web import Known, Page, SiteUnreadableError, WebLimits, WebReader

logger = logging.getLogger(__name__)
WEB, FOLDER, CONFLUENCE = "web", "folder", "confluence"
MISSES_TO_REMOVE = 2  # syncs in a row an item must be missing before its document goes
INGESTS_AT_ONCE = 16  # as `ragbot ingest`: short pages share embedding batches
# a session-level lock on a connection the sync holds: let go of if the process dies
_TRY_LOCK = "SELECT pg_try_advisory_lock(hashtextextended(:key, 0))"
_UNLOCK = "SELECT pg_advisory_unlock(hashtextextended(:key, 0))"


@dataclass(frozen=True)
class _Item:
    """A stored item as the sync read it at its start."""

    key: str
    etag: str | None
    last_modified: str | None
    content_hash: str | None
    document_id: int | None
    links: tuple[str, ...]

    @property
    def held(self) -> bool:
        """Whether its document is stored as last read (else it is read in full again)."""
        return self.content_hash is not None and self.document_id is not None


class SourceSyncer:
    """Syncs sources into the knowledge base through the ingestion service."""

    def __init__(
        self,
        db: Database,
        ingestion: IngestionService,
        limits: WebLimits,
        confluence: ConfluenceLogin | None = None,
    ) -> None:
        self._db = db
        self._ingestion = ingestion
        self._limits = limits
        self.confluence = confluence or ConfluenceLogin()

    async def sync(self, source: Source) -> SyncReport:
        """Sync `source` now and record the outcome (and its next sync time).

        One sync of a source at a time, across processes (the schedule and a
        `sources sync` by hand): a second one returns at once, recording nothing.
        """
        key = {"key": sources_repo.sync_lock_key(source.id)}
        async with self._db.engine.connect() as held:
            got = await held.scalar(text(_TRY_LOCK), key)
            await held.commit()
            if not got:
                return SyncReport(error="a sync of this source is running elsewhere")
            try:
                return await self._sync(source)
            finally:
                await held.execute(text(_UNLOCK), key)
                await held.commit()

    async def _sync(self, source: Source) -> SyncReport:
        started = time.perf_counter()
        report = SyncReport()
        async with self._db.sessions() as session:
            stored = {
                i.key: _Item(
                    i.key,
                    i.etag,
                    i.last_modified,
                    i.content_hash,
                    i.document_id,
                    tuple(i.links or ()),
                )
                for i in await sources_repo.items(session, source.id)
            }
        run = _Run(self, source, stored, report)
        try:
            found = await (
                run.read_web()
                if source.kind == WEB
                else run.read_confluence()
                if source.kind == CONFLUENCE
                else run.read_folder()
            )
        except (SiteUnreadableError, FolderUnreadableError, ConfluenceUnreadableError) as exc:
            report.error = str(exc)
        else:
            await run.finish(found)
        report.seconds = time.perf_counter() - started
        async with self._db.transaction() as session:
            await sources_repo.record_sync(session, source.id, report.status, report.as_json())
        return report


class _Run:
    """The state of one sync: what is stored, what was seen, what was done."""

    def __init__(
        self, syncer: SourceSyncer, source: Source, stored: dict[str, _Item], report: SyncReport
    ) -> None:
        self.syncer = syncer
        self.source = source
        self.stored = stored
        self.report = report
        self.unchanged: list[str] = []
        self.seen: set[str] = set()
        self.room = asyncio.Semaphore(INGESTS_AT_ONCE)
        self.reading = asyncio.Semaphore(2 * INGESTS_AT_ONCE)  # files in memory at once
        self.tasks: list[asyncio.Task[None]] = []

    async def read_web(self) -> set[str]:
        """Read the site; each page handled as it arrives; the URLs found (not gone)."""
        known = {
            k: Known(i.etag, i.last_modified, i.links)
            for k, i in self.stored.items()
            if i.held  # a page without its document (never made, deleted) is fetched in full
        }
        async with web.client(self.syncer._limits, self.source.location) as http:
            reader = WebReader(http, self.syncer._limits)
            try:
                asked = await reader.read(
                    self.source.location,
                    self.source.depth,
                    self.source.max_pages,
                    known,
                    self._on_page,
                )
            finally:
                self.report.requests = reader.requests
                await asyncio.gather(*self.tasks)
        return asked & self.seen

    async def read_folder(self) -> set[str]:
        """Read the folder (its files in turn, a few ingested at once); the paths found."""
        files = await asyncio.to_thread(folder_files, Path(self.source.location))
        await asyncio.gather(*(self._on_file(f) for f in files))
        return {f.key for f in files}

    async def read_confluence(self) -> set[str]:
        """Read the space: every page's version listed, the body of a new or changed one
        only (the blocking client in a thread); the pages found."""
        login = self.syncer.confluence
        reader = await asyncio.to_thread(
            ConfluenceReader, self.source.location, login, self.syncer._limits
        )
        try:
            for page in await asyncio.to_thread(reader.space_pages, self.source.max_pages):
                item = self.stored.get(page.key)
                if item is not None and item.held and item.etag == page.stamp:
                    self.seen.add(page.key)
                    self.unchanged.append(page.key)
                    continue
                try:
                    read = await asyncio.to_thread(reader.page, page)
                except ConfluencePageError as exc:
                    self.seen.add(page.key)  # failed, not missing: its document stays
                    self._failed(page.key, str(exc))
                    continue
                if read is None:
                    continue  # deleted since it was listed: counted missing
                self.seen.add(page.key)
                if not read.text:
                    continue  # no words of its own (a parent of child pages): nothing to ask
                validators = {"etag": read.stamp, "last_modified": read.when}
                data = read.text.encode()
                self.tasks.append(
                    asyncio.create_task(
                        self._changed(page.key, "page.md", data, read.title, page.url, validators)
                    )
                )
        finally:
            self.report.requests = reader.requests
            await asyncio.gather(*self.tasks)
            await asyncio.to_thread(reader.close)
        return set(self.seen)

    async def _on_page(self, page: Page) -> None:
        if page.status == web.GONE:
            return  # not seen: counted missing
        self.seen.add(page.url)
        if page.status == web.NOT_MODIFIED:
            self.unchanged.append(page.url)
        elif page.status == web.FAILED or page.page is None or page.page.text is None:
            self._failed(page.url, page.reason or "no text")
        else:
            text = page.page.text
            title = page.page.title or _url_title(page.url)
            links = page.page.links
            self.tasks.append(
                asyncio.create_task(
                    self._changed(
                        page.url,
                        "page.md",
                        text.encode(),
                        title,
                        page.url,
                        {"etag": page.etag, "last_modified": page.last_modified, "links": links},
                    )
                )
            )

    async def _on_file(self, file: FolderFile) -> None:
        async with self.reading:
            await self._read_file(file)

    async def _read_file(self, file: FolderFile) -> None:
        self.seen.add(file.key)
        item = self.stored.get(file.key)
        if item is not None and item.etag == file.stamp and item.held:
            self.unchanged.append(file.key)
            return
        try:
            data = await asyncio.to_thread(file.path.read_bytes)
        except OSError as exc:
            self._failed(file.key, f"cannot read the file ({exc.strerror})")
            return
        await self._changed(
            file.key, file.path.name, data, file.path.stem, None, {"etag": file.stamp}
        )

    async def _changed(
        self,
        key: str,
        filename: str,
        data: bytes,
        title: str,
        url: str | None,
        validators: dict[str, Any],
    ) -> None:
        """An item read in full: unchanged by its hash, else ingested (new or a new version).

        Whatever goes wrong here fails this item only (its document kept), never the sync.
        """
        try:
            await self._compare_and_ingest(key, filename, data, title, url, validators)
        except Exception as exc:
            logger.warning("source %s: %s failed", self.source.name, key, exc_info=True)
            self._failed(key, f"{type(exc).__name__}: {str(exc)[:200]}")

    async def _compare_and_ingest(
        self,
        key: str,
        filename: str,
        data: bytes,
        title: str,
        url: str | None,
        validators: dict[str, Any],
    ) -> None:
        digest = hashlib.sha256(data).hexdigest()
        item = self.stored.get(key)
        if item is not None and item.held and item.content_hash == digest:
            async with self.syncer._db.transaction() as session:
                await sources_repo.save_item(session, self.source.id, key, **validators)
            self.report.unchanged += 1
            return
        previous = item.document_id if item is not None else None
        async with self.room:
            title = await self._free_title(title, key, previous)
            result = await self.syncer._ingestion.ingest_bytes(
                filename,
                data,
                title=title,
                source=url or key,
                collection=self.source.collection,
                url=url,
                hold_personal_data=self.syncer._ingestion.policy.screens(self.source.collection),
                origin=origins.SOURCE,
                replaces=previous,
            )
        await self._record(key, digest, previous, result, validators)

    async def _record(
        self,
        key: str,
        digest: str,
        previous: int | None,
        result: IngestResult,
        validators: dict[str, Any],
    ) -> None:
        if result.status not in (ADDED, REPLACED, UNCHANGED):
            # the old document (if any) stays; no validators kept, so it is read again
            self._failed(key, result.reason or result.status)
            return
        async with self.syncer._db.transaction() as session:
            document_id = previous
            if result.status != UNCHANGED and result.title is not None:
                document = await docs_repo.find_by_title(session, result.title)
                document_id = document.id if document is not None else previous
            await sources_repo.save_item(
                session,
                self.source.id,
                key,
                # the same text as another document ("same content as"), and none of its
                # own: no hash kept, so it is read in full (and compared) again next time
                content_hash=digest if document_id is not None else None,
                document_id=document_id,
                **validators,
            )
        if result.status == UNCHANGED:
            self.report.unchanged += 1
        else:
            (self.report.added if previous is None else self.report.changed).append(key)

    async def _free_title(self, title: str, key: str, previous: int | None) -> str:
        """`title`, or `title (key)` when another document (not this item's) has it."""
        async with self.syncer._db.autocommit() as session:
            holder = await docs_repo.find_by_title(session, title)
        if holder is None or holder.id == previous:
            return title
        return f"{title} ({_short(key)})"

    def _failed(self, key: str, reason: str) -> None:
        self.report.failed.append({"item": key, "reason": reason})

    async def finish(self, found: set[str]) -> None:
        """Mark the unchanged seen, count the missing, remove those missing twice."""
        self.report.unchanged += len(self.unchanged)
        gone = [k for k in self.stored if k not in found and k not in self.seen]
        async with self.syncer._db.transaction() as session:
            await sources_repo.mark_seen(session, self.source.id, self.unchanged)
            await sources_repo.mark_missing(session, self.source.id, gone)
            misses = {
                i.key: i.missing_count
                for i in await sources_repo.items(session, self.source.id)
                if i.key in set(gone)
            }
        for key in sorted(gone):
            if misses.get(key, 0) < MISSES_TO_REMOVE:
                self.report.missing.append(key)
                continue
            async with self.syncer._db.transaction() as session:
                await sources_repo.remove_item(session, self.source.id, key)
            self.report.removed.append(key)


def _url_title(url: str) -> str:
    """A page without a <title>: its path names it."""
    parts = urlsplit(url)
    return f"{parts.netloc}{parts.path}".rstrip("/")


def _short(key: str) -> str:
    """An item's key as a title suffix: a URL's path, a file's path."""
    return urlsplit(key).path or key if "://" in key else key


__all__ = ["CONFLUENCE", "FOLDER", "WEB", "SourceItem", "SourceSyncer", "SyncReport"]
