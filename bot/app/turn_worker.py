"""The other end of `bot.app.turn_processes`: a turn worker process, and the wire between.

Messages are `(kind, turn id, payload)` tuples, pickled behind a 4-byte length (parent
and child are one program; nothing from outside is ever unpickled here). The serving
process sends `turn` (its arguments), `stop`, `cancel` and `quit`; the worker sends
`ready` (or `failed` at start), then each turn's `event`s and its `end` (or `failed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import signal
import socket
import struct
from typing import Any

from bot.app.process_logging import configure_logging
from bot.settings import Settings
from storage.heap import freeze_start_up_objects

logger = logging.getLogger(__name__)
_FRAME = struct.Struct("!I")
Message = tuple[str, int, Any]  # (kind, turn id, payload)


async def receive(reader: asyncio.StreamReader) -> Message:
    """The next message (IncompleteReadError: the other end is gone)."""
    size = _FRAME.unpack(await reader.readexactly(_FRAME.size))[0]
    message: Message = pickle.loads(await reader.readexactly(size))
    return message


def send(writer: asyncio.StreamWriter, message: Message) -> None:
    """Queue one message on the stream (the caller drains when it must wait for room)."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    writer.write(_FRAME.pack(len(data)) + data)


def run_worker(settings: Settings, sock: socket.socket) -> None:
    """A worker process's entry: serve turns over `sock` until told to quit or orphaned."""
    # Ctrl-C and a service manager's SIGTERM reach the whole process group: the serving
    # process drains (its turns here finish) and then says quit; it alone decides
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # below the serving process: under load, a platform's ack, the typing indicator and
    # the sends of answers already written come before more turn work
    if settings.turn_nice:
        try:
            os.nice(settings.turn_nice)  # added to the serving process's (19 at most)
        except OSError as exc:  # a container that refuses it: the same priority, said
            logging.getLogger(__name__).warning("TURN_NICE not applied (%s)", exc)
    configure_logging(settings.log_level)
    asyncio.run(_serve_turns(settings, sock))


async def _serve_turns(settings: Settings, sock: socket.socket) -> None:
    # here, not at the top: the serving process imports this module for the wire alone
    from bot.app.runtime import open_runtime
    from bot.app.warming import warm_up

    reader, writer = await asyncio.open_unix_connection(sock=sock)
    try:
        async with open_runtime(settings, check_index=False) as rt:
            await asyncio.to_thread(warm_up, rt)
            await _warm_turns(rt)
            service = rt.answer_service()
            freeze_start_up_objects()  # warm: out of the full GC passes that stall turns
            send(writer, ("ready", 0, None))
            await _run_turns(service, reader, writer)
    except Exception as exc:  # said to the parent, which fails the start with it
        logger.exception("turn worker failed")
        with contextlib.suppress(Exception):
            send(writer, ("failed", 0, f"{type(exc).__name__}: {exc}"))
            await writer.drain()


async def _warm_turns(rt: Any) -> None:
    """Open the pool's connections and run one search now: the first turns of a worker
    (often a burst, right after a start) would otherwise each open a connection and pay
    the statements' first compilation. Best effort: a failure here is not a failed start."""
    try:
        await rt.db.warm(rt.settings.db_pool_size)
        await rt.searcher.search("warm up 暖機", top_k=1)
    except Exception as exc:
        logger.warning("turn worker warm-up incomplete (%s)", type(exc).__name__)


async def _run_turns(
    service: Any, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    running: dict[int, tuple[asyncio.Task[None], asyncio.Event]] = {}

    async def one(turn: int, arguments: dict[str, Any], stop: asyncio.Event) -> None:
        try:
            events = service.stream(**arguments, stop=stop)
            async with contextlib.aclosing(events) as out:
                async for event in out:
                    send(writer, ("event", turn, event))
                    await writer.drain()
            send(writer, ("end", turn, None))
        except ConnectionError:  # the parent is gone: nobody to tell
            pass
        except Exception:  # an event that would not go over (a bug): the turn ends, said
            logger.exception("turn %d: its events could not be sent", turn)
            with contextlib.suppress(Exception):
                send(writer, ("failed", turn, None))
        finally:
            running.pop(turn, None)

    while True:
        try:
            kind, turn, payload = await receive(reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            break  # the serving process is gone
        if kind == "turn":
            stop = asyncio.Event()
            running[turn] = (asyncio.create_task(one(turn, payload, stop)), stop)
        elif kind in ("stop", "cancel") and turn in running:
            task, stop = running[turn]
            if kind == "stop":
                stop.set()  # the asker's Stop: the turn ends with what it wrote
            else:
                task.cancel()
        elif kind == "quit":
            break
    tasks = [task for task, _ in running.values()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
