"""Storing ready documents: several in one transaction when they are ready together.

A document's write is eight round trips and a commit, and every writer queues
for the `index_meta` row to count its terms in. When a folder is ingested,
documents become ready faster than one at a time can be written, so the
documents that queue while a transaction runs go together in the next one:
one set of locks, one read of the index's embedder, one query for the same
content or title, one insert each, and the statistics counted in once. A
document ready alone is written at once, alone, as before.

Two documents of one batch never share a content hash, a title or a stored
document they would replace: the later one waits for the next batch, so it
sees the earlier one's outcome as it would have one at a time. When a batch
fails, each of its documents is tried again alone, so one document's error
is its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from storage.db import Database
from storage.models import Document
from storage.repositories import documents as docs_repo
from storage.repositories.documents import Counted, NewChunk

logger = logging.getLogger(__name__)

BATCHES_AT_ONCE = 2  # a batch writing while the next one's documents wait for locks
MAX_DOCUMENTS = 16  # documents in one transaction
MAX_CHUNKS = 512  # chunks in one transaction (a long document goes alone)

ADDED, REPLACED, UNCHANGED, FAILED = "added", "replaced", "unchanged", "failed"


@dataclass(frozen=True)
class Written:
    """What became of one document: ADDED, REPLACED, UNCHANGED or FAILED (with why)."""

    status: str
    reason: str | None = None


@dataclass
class _Request:
    document: Document
    chunks: list[NewChunk]
    replace_elsewhere: bool
    done: asyncio.Future[Written] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    @property
    def lock_keys(self) -> tuple[str, str]:
        """The advisory locks of its content and its title (as every writer of either takes)."""
        return f"doc-hash:{self.document.content_hash}", f"doc-title:{self.document.title}"


class DocumentWriter:
    """Writes documents with their chunks, batching those that are ready together."""

    def __init__(self, db: Database, stale_embedder: Callable[[str | None], str | None]) -> None:
        """`stale_embedder(index_model)`: why this process may not add vectors to an index
        built with `index_model` (None: it may)."""
        self._db = db
        self._stale_embedder = stale_embedder
        self._waiting: list[_Request] = []
        self._running: set[asyncio.Task[None]] = set()

    async def write(
        self, document: Document, chunks: list[NewChunk], *, replace_elsewhere: bool = True
    ) -> Written:
        """Store `document` with `chunks` (replacing the document of its title, unless that
        one is in another collection and not `replace_elsewhere`); its outcome.

        A database error is raised to the caller, as a transaction of its own would.
        """
        request = _Request(document, chunks, replace_elsewhere)
        self._waiting.append(request)
        self._start_batches()
        try:
            return await asyncio.shield(request.done)
        except asyncio.CancelledError:
            if request in self._waiting:  # not taken yet: it never will be
                self._waiting.remove(request)
            raise

    def _start_batches(self) -> None:
        while self._waiting and len(self._running) < BATCHES_AT_ONCE:
            batch = self._take()
            if not batch:
                return
            task = asyncio.create_task(self._write_batch(batch))
            self._running.add(task)
            task.add_done_callback(self._batch_ended)

    def _batch_ended(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._start_batches()

    def _take(self) -> list[_Request]:
        """The next batch: waiting documents in arrival order, none sharing a key with an
        earlier one (waiting or in this batch), within the batch's size."""
        batch: list[_Request] = []
        seen: set[str] = set()
        chunks = 0
        for request in list(self._waiting):
            keys = request.lock_keys
            if seen.intersection(keys):
                seen.update(keys)  # later documents of these keys wait behind it
                continue
            seen.update(keys)
            if batch and (len(batch) >= MAX_DOCUMENTS or chunks + len(request.chunks) > MAX_CHUNKS):
                break
            batch.append(request)
            chunks += len(request.chunks)
        for request in batch:
            self._waiting.remove(request)
        return batch

    async def _write_batch(self, batch: list[_Request]) -> None:
        try:
            outcomes = await self._transaction(batch)
        except Exception as exc:
            if len(batch) == 1:
                _settle(batch[0], exc)
                return
            logger.warning("a batch of %d documents failed (%s): each alone", len(batch), exc)
            await asyncio.gather(*(self._write_batch([r]) for r in batch))
            return
        except BaseException as exc:  # cancelled: the callers hear it
            for request in batch:
                _settle(request, exc)
            raise
        for request, outcome in zip(batch, outcomes, strict=True):
            if outcome is None:  # shares a stored document with an earlier one: next batch
                self._waiting.insert(0, request)
            else:
                _settle(request, outcome)

    async def _transaction(self, batch: list[_Request]) -> list[Written | None]:
        """One transaction for `batch`; None for a document left for the next batch."""
        outcomes: list[Written | None] = []
        async with self._db.transaction() as session:
            # Two ingests of the same title or the same bytes at once: the second
            # waits here, then sees the first one's document instead of a conflict.
            # The index lock in share mode: no reindex swap until this commits, so the
            # embedder checked next is still the index's when the chunks land.
            await docs_repo.lock_keys(
                session,
                [key for r in batch for key in r.lock_keys],
                shared=[docs_repo.INDEX_WRITES],
            )
            stale = self._stale_embedder(await docs_repo.index_model(session))
            if stale is not None:
                return [Written(FAILED, stale) for _ in batch]
            found = await docs_repo.find_same_many(
                session, [(r.document.content_hash, r.document.title) for r in batch]
            )
            claimed: set[int] = set()  # stored documents an earlier one of the batch settled
            adding: list[_Request] = []
            for request, (same, old) in zip(batch, found, strict=True):
                touched = {d.id for d in (same, old) if d is not None}
                if touched & claimed:
                    outcomes.append(None)
                    continue
                claimed |= touched
                decided = _decide(request, same, old)
                if decided is None and old is not None:
                    await docs_repo.delete_document(session, old)
                    await session.flush()
                    decided = Written(REPLACED)
                outcomes.append(decided or Written(ADDED))
                if decided is None or decided.status == REPLACED:
                    adding.append(request)
            counted = Counted()
            for request in adding:
                await docs_repo.insert_document(session, request.document, request.chunks)
                counted.add(request.chunks)
            if adding:
                await docs_repo.count_in(session, counted)
        return outcomes


def _decide(request: _Request, same: Document | None, old: Document | None) -> Written | None:
    """The outcome found before writing (None: write it)."""
    if same is not None:
        return Written(UNCHANGED, "added meanwhile")
    elsewhere = old is not None and old.collection != request.document.collection
    if elsewhere and not request.replace_elsewhere:
        reason = "a document with this title is in another collection: choose another title"
        return Written(FAILED, reason)
    return None


def _settle(request: _Request, outcome: Written | BaseException) -> None:
    if request.done.done():
        return
    if isinstance(outcome, asyncio.CancelledError):
        request.done.cancel()
    elif isinstance(outcome, BaseException):
        request.done.set_exception(outcome)
    else:
        request.done.set_result(outcome)
