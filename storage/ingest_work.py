"""Ingestion's CPU work, kept away from the interpreter that serves turns.

Chunking, language detection, personal-data scans, keyword tokens and the local
embedder are pure CPU: run in threads of a serving process they take the
interpreter from its turns. `IngestWork` runs them in worker processes
(`INGEST_PROCESSES`, started on first use, at a lower CPU priority:
`INGEST_NICE`), or in threads of this process with 0 processes.

Texts to embed from documents ingested at the same time are gathered into
batches (`batch_size`, waiting at most `LINGER_S` for company): the local
embedder spends about 8 ms a text in a batch of 32 and 40 ms on a text alone,
and a folder of short documents would otherwise embed them one by one.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from storage.embeddings import Embedder, LocalUSEEmbeddings
from storage.heap import freeze_start_up_objects
from storage.sandbox import ParsedFile, ParseLimits, parse_isolated
from textkit.tokens import keyword_tokens

logger = logging.getLogger(__name__)
T = TypeVar("T")
LINGER_S = 0.005  # how long a batch that is not full waits for other documents' texts
REMOTE_CALLS = 4  # embedding API calls at once (they wait on the network, not a core)
CLOSE_S = 30.0  # how long closing waits for the work under way (one batch, one document)

Vectors = list[list[float]]
Tokens = list[list[str]]
Request = tuple[list[str], "asyncio.Future[tuple[Vectors, Tokens]]"]  # texts, their answer


class IngestWorkerError(RuntimeError):
    """An ingestion worker process died (killed, out of memory); the next use starts anew."""


_model: LocalUSEEmbeddings | None = None  # a worker process's own copy of the local model


def _start_worker(nice: int) -> None:
    """A worker process's start: below the serving process in the CPU scheduler's eyes."""
    if nice:
        os.nice(nice)


def tokenise(texts: list[str]) -> Tokens:
    """The keyword tokens of each text (as search cuts a query)."""
    return [keyword_tokens(t) for t in texts]


def embed_locally(texts: list[str]) -> tuple[Vectors, Tokens]:
    """The local embedder's vectors and the keyword tokens of `texts`, in a worker process."""
    global _model
    if _model is None:  # one thread: the processes are the parallelism
        _model = LocalUSEEmbeddings(threads=1)
        _model.embed_query("warm up")
        tokenise(["暖機 warm up"])  # loads jieba's dictionary
        freeze_start_up_objects()  # the model and the dictionary: out of the full GC passes
    return _model.embed_documents(texts), tokenise(texts)


class IngestWork:
    """Runs ingestion's CPU work in worker processes (or threads), batching embeddings."""

    def __init__(
        self, embedder: Embedder, processes: int = 0, nice: int = 10, batch_size: int = 32
    ) -> None:
        self._embedder = embedder
        self._processes = max(0, processes)
        self._nice = nice
        self._batch_size = max(1, batch_size)
        self._pool: ProcessPoolExecutor | None = None
        self._pending: list[Request] = []
        self._drainer: asyncio.Task[None] | None = None
        self._batches: set[asyncio.Task[None]] = set()
        self._slots: asyncio.Semaphore | None = None  # batches in flight at once
        self._parsing: asyncio.Semaphore | None = None  # parser processes at once

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in a worker process (threads with 0 processes); picklable both ways."""
        if not self._processes:
            return await asyncio.to_thread(fn, *args)
        pool = self._executor()
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        except BrokenProcessPool as exc:
            if self._pool is pool:  # the next call starts fresh processes
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise IngestWorkerError(
                "an ingestion worker process stopped (out of memory or killed)"
            ) from exc

    async def parse(
        self, data: bytes, fmt: str, limits: ParseLimits, pages: Sequence[int] = ()
    ) -> ParsedFile:
        """`data` parsed in the sandboxed parser process; as many parsers at once as
        worker processes (at least 2): its time limit is wall-clock, and a parser
        waiting for a core must not run out of it."""
        if self._parsing is None:
            self._parsing = asyncio.Semaphore(max(2, self._processes))
        async with self._parsing:
            return await parse_isolated(data, fmt, limits, pages)

    async def embed(self, texts: list[str]) -> tuple[Vectors, Tokens]:
        """Vectors and keyword tokens of `texts`, embedded with other documents' texts."""
        if not texts:
            return [], []
        future: asyncio.Future[tuple[Vectors, Tokens]] = asyncio.get_running_loop().create_future()
        self._pending.append((texts, future))
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.create_task(self._drain())
        return await future

    async def close(self) -> None:
        """Finish the batches in flight and stop the worker processes."""
        if self._drainer is not None:
            await asyncio.gather(self._drainer, return_exceptions=True)
        await asyncio.gather(*self._batches, return_exceptions=True)
        pool, self._pool = self._pool, None
        if pool is not None:
            try:
                await asyncio.wait_for(
                    asyncio.to_thread(pool.shutdown, True, cancel_futures=True), CLOSE_S
                )
            except TimeoutError:
                logger.warning("ingestion worker processes still busy after %.0f s", CLOSE_S)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: the serving process has threads and an event loop
            self._pool = ProcessPoolExecutor(
                self._processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(self._nice,),
            )
        return self._pool

    async def _drain(self) -> None:
        """Hand the waiting texts over in batches, as many at once as there are processes."""
        if self._slots is None:
            in_processes = self._processes and self._embedder.is_local
            self._slots = asyncio.Semaphore(self._processes if in_processes else REMOTE_CALLS)
        while self._pending:
            if sum(len(t) for t, _ in self._pending) < self._batch_size:
                await asyncio.sleep(LINGER_S)  # other documents' texts may join this batch
            await self._slots.acquire()
            batch = self._take()
            task = asyncio.create_task(self._compute(batch))
            self._batches.add(task)
            task.add_done_callback(self._batch_done)

    def _batch_done(self, task: asyncio.Task[None]) -> None:
        self._batches.discard(task)
        if self._slots is not None:
            self._slots.release()

    def _take(self) -> list[Request]:
        """Whole requests, oldest first, up to a batch (at least one request)."""
        batch: list[Request] = []
        size = 0
        while self._pending and (not batch or size + len(self._pending[0][0]) <= self._batch_size):
            texts, future = self._pending.pop(0)
            batch.append((texts, future))
            size += len(texts)
        return batch

    async def _compute(self, batch: list[Request]) -> None:
        texts = [text for request, _ in batch for text in request]
        try:
            vectors, tokens = await self._vectors_and_tokens(texts)
        except Exception as exc:
            if len(batch) > 1:  # one document's text may be the cause: each on its own
                for alone in batch:
                    await self._compute([alone])
                return
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        start = 0
        for request, future in batch:
            end = start + len(request)
            if not future.done():  # its document's ingestion was cancelled meanwhile
                future.set_result((vectors[start:end], tokens[start:end]))
            start = end

    async def _vectors_and_tokens(self, texts: list[str]) -> tuple[Vectors, Tokens]:
        if self._processes and self._embedder.is_local:
            return await self.run(embed_locally, texts)
        # an embedding API (network wait, in a thread) or threads only: the model here
        vectors = await asyncio.to_thread(self._embedder.model.embed_documents, texts)
        return vectors, await self.run(tokenise, texts)
