"""Turns in worker processes: the serving interpreter keeps the platforms, the turns' CPU
work runs beside it.

One interpreter cannot run 20 turns at once on 2 cores: the graph (the guard's
embeddings, the search, jieba, the citation checks, the model client's parsing)
saturates it and every turn waits for every other. With TURN_PROCESSES = N > 0,
`ragbot serve` spawns N processes, each with its own runtime (database pool, embedder,
model client, answer memory, telemetry) on the same database, and hands each turn
(`AnswerService.stream`) to the least busy one; the serving process keeps HTTP, the
adapters, the inbox, the conversation locks, the per-chat pace and the outbox. Events
come back over a socket pair as they happen (the worker's side and the wire:
`bot.app.turn_worker`).

- The asker's Stop is passed on: the turn ends with what it had written, as in-process.
- A caller that stops listening (a drain, a closed stream) cancels the turn there; the
  worker stores it as cancelled, as in-process.
- A worker that dies (killed, out of memory) ends its turns with the usual error reply
  (nothing half-written is kept) and is started again at the next turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import pickle
import socket
import time
import uuid
from collections.abc import AsyncGenerator, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr

from bot.app.turn_worker import Message, receive, run_worker, send
from bot.settings import Settings
from graph.events import ErrorReply, TurnEvent
from textkit.catalog import say

logger = logging.getLogger(__name__)
START_S = 180.0  # a worker's start (imports, the embedder, jieba's dictionary) at most
CLOSE_S = 10.0  # how long closing waits for a worker to finish its turns and exit
RETRY_S = 30.0  # after a failed start, the slot is started again no sooner than this
WHAT = {"lost": "process stopped", "failed": "could not send the turn's events"}


class TurnWorkerError(RuntimeError):
    """A turn worker process could not be started."""


@dataclass
class _Worker:
    """One worker process, its end of the socket pair, and the turns it runs."""

    process: Any  # multiprocessing's SpawnProcess
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    turns: dict[int, asyncio.Queue[tuple[str, Any]]] = field(default_factory=dict)
    alive: bool = True
    reading: asyncio.Task[None] | None = None

    def send(self, message: Message) -> None:
        if self.alive:
            send(self.writer, message)

    async def read(self) -> None:
        """Hand each event to its turn; at the end (the process died), end them all."""
        try:
            while True:
                kind, turn, payload = await receive(self.reader)
                queue = self.turns.get(turn)
                if queue is not None:
                    queue.put_nowait((kind, payload))
        except (asyncio.IncompleteReadError, ConnectionError, EOFError, pickle.PickleError):
            pass
        finally:
            self.alive = False
            for queue in self.turns.values():
                queue.put_nowait(("lost", None))


class TurnProcesses:
    """`stream` as `AnswerService.stream`, run in one of `count` worker processes."""

    def __init__(self, settings: Settings, database_url: str, count: int) -> None:
        # the workers use this process's database (an embedded one is not started twice),
        # each with a share of DB_POOL_SIZE (docs/operating.md, "Sizing turns", counts them)
        share = max(2, -(-settings.db_pool_size // max(1, count)))
        self._settings = settings.model_copy(
            update={"database_url": SecretStr(database_url), "db_pool_size": share}
        )
        self.count = count
        self._closing = False
        self._retry_at: dict[int, float] = {}  # slot → no new start before (monotonic)
        self._tasks: set[asyncio.Future[None]] = set()
        self._workers: list[_Worker | None] = [None] * count
        self._starting: dict[int, asyncio.Task[_Worker]] = {}
        self._ids = itertools.count(1)

    async def open(self) -> None:
        """Start every worker now (serving starts once they are ready, not at a first turn)."""
        await asyncio.gather(*(self._worker_at(i) for i in range(self.count)))

    async def close(self) -> None:
        """Ask each worker to finish and exit; stop the ones that do not in time."""
        # turns still running now (past the drain's grace) are left to the next worker, as
        # in-process: cancelled, not answered with an apology
        self._closing = True
        starting = list(self._starting.values())
        for task in starting:
            task.cancel()
        await asyncio.gather(*starting, return_exceptions=True)  # each kills its process
        workers = [w for w in self._workers if w is not None]
        self._workers = [None] * self.count
        await asyncio.gather(*(self._stop(w) for w in workers))
        await asyncio.gather(*self._tasks, return_exceptions=True)  # reaping, restarts

    async def stream(
        self,
        question: str,
        *,
        stop: asyncio.Event | None = None,
        waited_ms: Mapping[str, float] | None = None,
        **arguments: Any,
    ) -> AsyncGenerator[TurnEvent, None]:
        """The turn's events as `AnswerService.stream(question, **arguments)` gives them,
        from a worker process (its keyword arguments, all plain data, go over as given)."""
        worker = await self._least_busy()
        turn = next(self._ids)
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        worker.turns[turn] = queue
        # read now: the caller fills it in until the turn starts (its first event)
        request = {"question": question, **arguments, "waited_ms": dict(waited_ms or {})}
        ended = False
        watching = asyncio.create_task(self._pass_stop(stop, worker, turn)) if stop else None
        try:
            worker.send(("turn", turn, request))
            if not worker.alive:
                queue.put_nowait(("lost", None))
            while True:
                kind, payload = await queue.get()
                if kind == "event":
                    yield payload
                    continue
                ended = True
                if kind == "end":
                    return
                if self._closing:  # shutting down: left to the next worker
                    raise asyncio.CancelledError
                said = arguments.get("language") or arguments.get("apology_language") or "en"
                logger.error("a turn worker %s during a turn", WHAT.get(kind, kind))
                yield ErrorReply(say("error", said), said, uuid.uuid4().hex, "WorkerLost")
                return
        finally:
            worker.turns.pop(turn, None)
            if watching is not None:
                watching.cancel()
            if not ended:  # the caller stopped listening: the turn stops there too
                worker.send(("cancel", turn, None))

    @staticmethod
    async def _pass_stop(stop: asyncio.Event, worker: _Worker, turn: int) -> None:
        await stop.wait()
        worker.send(("stop", turn, None))

    async def _least_busy(self) -> _Worker:
        """The live worker with the fewest turns; a dead one is started again meanwhile
        (waited for only when none is alive)."""
        live = [w for w in self._workers if w is not None and w.alive]
        now = time.monotonic()
        for index, worker in enumerate(self._workers):
            dead = worker is None or not worker.alive
            if dead and index not in self._starting and now >= self._retry_at.get(index, 0.0):
                self._restart_later(index)
        if live:
            return min(live, key=lambda w: len(w.turns))
        return await self._worker_at(0)

    def _restart_later(self, index: int) -> None:
        async def restart() -> None:
            try:
                await self._worker_at(index)
            except Exception as exc:  # said; the next turn tries again
                logger.error("turn worker %d could not start again: %s", index, exc)

        if not self._closing:
            self._background(restart())

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)  # held until done (the loop keeps only weak references)
        task.add_done_callback(self._tasks.discard)

    async def _worker_at(self, index: int) -> _Worker:
        worker = self._workers[index]
        if worker is not None and worker.alive:
            return worker
        # no await from the check to the start's registration: one start per slot
        task = self._starting.get(index)
        if task is None:
            if self._closing:  # shutting down: no process started that close() would miss
                raise asyncio.CancelledError
            if worker is not None:  # died: its process is reaped meanwhile, a new one started
                logger.warning("turn worker %d stopped; starting a new one", index)
                self._workers[index] = None
                self._background(self._stop(worker))
            task = asyncio.ensure_future(self._spawn())
            self._starting[index] = task

            def started(done: asyncio.Task[_Worker], index: int = index) -> None:
                self._starting.pop(index, None)
                if not done.cancelled() and done.exception() is None:
                    self._workers[index] = done.result()
                else:  # a failed start is tried again after a pause, not at every turn
                    self._retry_at[index] = time.monotonic() + RETRY_S

            task.add_done_callback(started)
        return await asyncio.shield(task)

    async def _spawn(self) -> _Worker:
        ours, theirs = socket.socketpair()
        process = multiprocessing.get_context("spawn").Process(
            target=run_worker, args=(self._settings, theirs), name="ragbot-turns", daemon=True
        )
        try:
            process.start()
        finally:
            theirs.close()
        try:
            reader, writer = await asyncio.open_unix_connection(sock=ours)
        except BaseException:
            ours.close()
            process.kill()
            await asyncio.to_thread(process.join, 5)
            raise
        worker = _Worker(process, reader, writer)
        try:
            kind, _, detail = await asyncio.wait_for(receive(reader), START_S)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError) as exc:
            await self._stop(worker)
            raise TurnWorkerError(
                f"a turn worker process did not start ({type(exc).__name__}); see its log above"
            ) from exc
        except BaseException:  # cancelled (a stop during the start): no process left behind
            writer.close()
            process.kill()
            await asyncio.to_thread(process.join, 5)
            raise
        if kind != "ready":
            await self._stop(worker)
            raise TurnWorkerError(f"a turn worker process could not start: {detail}")
        worker.reading = asyncio.create_task(worker.read(), name="turn-worker")
        return worker

    @staticmethod
    async def _stop(worker: _Worker) -> None:
        worker.send(("quit", 0, None))
        with contextlib.suppress(Exception):
            worker.writer.close()
        process = worker.process
        await asyncio.to_thread(process.join, CLOSE_S)
        if process.is_alive():
            process.kill()
            await asyncio.to_thread(process.join, 5)
        if worker.reading is not None:
            worker.reading.cancel()
            await asyncio.gather(worker.reading, return_exceptions=True)
