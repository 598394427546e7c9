"""`ragbot serve` and `ragbot worker`: start what is configured, stop it all cleanly on a signal.

SIGTERM and Ctrl-C: no new deliveries are taken, turns in flight finish (up to
SHUTDOWN_GRACE_SECONDS), running jobs get the same grace and queued ones stay
queued, then the database pool closes and the embedded Postgres this process
started is stopped (atexit alone would skip it on SIGTERM).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from collections.abc import Callable, Sequence
from typing import Protocol

from starlette.routing import BaseRoute

from bot.app import http_server
from bot.app.bridge import serving_app
from bot.app.runtime import Runtime, open_runtime
from bot.app.turn_processes import TurnProcesses
from bot.app.warming import warm_up
from bot.core.admin.jobs import JobQueue
from bot.core.serving import ServingCore
from bot.settings import API_PLATFORM, Settings
from storage.heap import freeze_start_up_objects

logger = logging.getLogger(__name__)
WARM_POOL_S = 10.0  # opening the pool's connections at start: past this, left to the turns
WORKER_RESTART_S = 5.0


class Adapter(Protocol):
    """A chat platform plugged into the core (Slack, Telegram)."""

    name: str

    @property
    def routes(self) -> Sequence[BaseRoute]:
        """HTTP endpoints it needs on the shared server."""
        ...

    async def start(self) -> None: ...

    async def stop(self) -> None:
        """Stop taking new events (the core drains after)."""
        ...

    async def close(self) -> None:
        """Release the platform client, once the drain and the outbox are done with it."""
        ...


def configured_adapters(settings: Settings, core: ServingCore) -> list[Adapter]:
    """The adapters whose credentials are set, then the HTTP API (always mounted, last:
    its routes take whatever path the others did not; no API key made: it answers 404)."""
    adapters: list[Adapter] = []
    # Imported only when configured: each pulls in its platform's SDK (about 0.3 s),
    # which every other `ragbot` command would pay at start for nothing.
    if settings.slack_bot_token is not None:
        from bot.slack.app import SlackAdapter

        adapters.append(SlackAdapter(core, settings))
    if settings.telegram_bot_token is not None:
        from bot.telegram.app import TelegramAdapter

        adapters.append(TelegramAdapter(core, settings))
    from bot.api.app import ApiAdapter  # FastAPI: only for serving

    adapters.append(ApiAdapter(core, settings))
    return adapters


def _stop_on_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)


async def run(
    settings: Settings,
    host: str,
    port: int,
    *,
    chat: bool,
    say: Callable[[str], None] = print,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve until `stop` is set (by SIGTERM/SIGINT unless given); `chat=False` is the worker."""
    stop = stop or asyncio.Event()
    # the port first: taken is a failed start in one line, before minutes of warming up
    sock = http_server.bind(host, port)
    _stop_on_signals(stop)
    embedded = None
    try:
        async with open_runtime(settings) as rt:
            embedded = rt.server
            await _serve(rt, sock, chat=chat, say=say, stop=stop)
    finally:
        sock.close()
        # the pool is closed by now; stop the embedded Postgres if this process started it
        if embedded is not None:
            await asyncio.to_thread(embedded.cleanup)
    say("stopped")


async def _serve(
    rt: Runtime,
    sock: socket.socket,
    *,
    chat: bool,
    say: Callable[[str], None],
    stop: asyncio.Event,
) -> None:
    settings = rt.settings
    host, port = sock.getsockname()[:2]
    turns = TurnProcesses(settings, rt.url, settings.turn_process_count() if chat else 0)
    # the answering side is warmed where the turns run: here only with no turn workers
    await asyncio.to_thread(warm_up, rt, answers=chat and not turns.count)
    if chat:  # the first burst of webhooks would each open a connection before its ack
        try:
            await asyncio.wait_for(rt.db.warm(settings.db_pool_size), WARM_POOL_S)
        except Exception as exc:  # not a failed start: the health check says what is wrong
            logger.warning("database pool not warmed (%s: %s)", type(exc).__name__, exc)
    jobs = rt.job_queue()
    await jobs.open()
    core: ServingCore | None = None
    try:
        if chat and turns.count and not await _started(turns, stop):
            return  # stopped (SIGTERM, Ctrl-C) while the turn workers were starting
        core = rt.serving_core(jobs, turns.stream if turns.count else None) if chat else None
        adapters = configured_adapters(settings, core) if core is not None else []
        routes = [route for adapter in adapters for route in adapter.routes]
        draining = (lambda: core.closing) if core is not None else (lambda: stop.is_set())
        # HTTP in its own thread and loop, every request handled on this one (bot.app.bridge)
        app = serving_app(
            rt.db, routes, draining, asyncio.get_running_loop(), settings.webhook_max_body_kb * 1024
        )
        server = http_server.server(app, settings, host, port)
        # built and warm, before any message arrives (Socket Mode and polling take them
        # from the adapters' start): out of the full GC passes that would stall the acks
        freeze_start_up_objects()
        await _start_adapters(adapters)  # before HTTP: healthy means the adapters are up
        if core is not None:  # the adapters registered their renderers and senders
            core.start()
        http = asyncio.create_task(http_server.listen_in_thread(server, sock), name="http")
        worker = asyncio.create_task(_run_jobs(jobs, settings), name="jobs")
        _announce(say, host, port, chat, [a.name for a in adapters])
        await _until_stopped(stop, http)
        say("stopping: finishing turns and jobs in flight…")
        if core is not None:
            await core.begin_stop()  # /healthz says 503 and nothing new is accepted, from now
        for adapter in adapters:
            await adapter.stop()  # disconnect / stop fetching: the platform keeps the rest
        # then what is due in the outbox goes out; retries wait for the next worker
        if core is not None and not await core.finish(settings.shutdown_grace_s):
            logger.warning(
                "turns still running after %.0f s; left to the next worker",
                settings.shutdown_grace_s,
            )
        for adapter in adapters:
            await adapter.close()
        server.should_exit = True
        worker.cancel()  # procrastinate: running jobs get the grace, queued ones stay queued
        # bounded: with the database gone, the worker's goodbye would wait for a connection
        await asyncio.wait([http, worker], timeout=settings.shutdown_grace_s + 5)
    finally:
        if core is not None:
            await core.close()  # the Stop relay, the conversation locks
        await turns.close()  # after the drain: the turns in flight have finished
        try:
            await asyncio.wait_for(jobs.close(), 5)
        except TimeoutError:
            logger.warning("the job queue's connections did not close in time")


async def _started(turns: TurnProcesses, stop: asyncio.Event) -> bool:
    """Start the turn workers (before HTTP: healthy means turns can run); False when a stop
    came first (the workers ignore signals: the serving process decides)."""
    opening = asyncio.ensure_future(turns.open())
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait([opening, stopping], return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if opening.done():
        opening.result()  # a worker that could not start fails the start, said
        return True
    opening.cancel()
    await asyncio.gather(opening, return_exceptions=True)
    return False


async def _start_adapters(adapters: Sequence[Adapter]) -> None:
    """Start each adapter; if one fails, stop the ones already started."""
    started: list[Adapter] = []
    try:
        for adapter in adapters:
            await adapter.start()
            started.append(adapter)
    except BaseException:
        for adapter in reversed(started):
            await adapter.stop()
        raise


async def _run_jobs(jobs: JobQueue, settings: Settings) -> None:
    """Run the job worker; restart it when it stops on a database error (a blip, a restart)."""
    while True:
        try:
            await jobs.run_worker(settings.worker_concurrency, settings.shutdown_grace_s)
            reason = "stopped"
        except Exception as exc:
            reason = f"failed ({type(exc).__name__})"
        logger.warning("job worker %s; restarting in %.0f s", reason, WORKER_RESTART_S)
        await asyncio.sleep(WORKER_RESTART_S)


async def _until_stopped(stop: asyncio.Event, *tasks: asyncio.Task[None]) -> None:
    """Wait for the stop signal, or for a part to die (which then stops the rest)."""
    waiter = asyncio.create_task(stop.wait())
    done, _ = await asyncio.wait([waiter, *tasks], return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    for task in done:
        if task is not waiter and task.exception() is not None:
            logger.error("%s stopped: %s", task.get_name(), task.exception())
    stop.set()


def _announce(
    say: Callable[[str], None], host: str, port: int, chat: bool, names: list[str]
) -> None:
    say(f"health: http://{host}:{port}/healthz")
    say("job worker: running")
    if not chat:
        return
    if API_PLATFORM in names:
        say(f"http api: http://{host}:{port}/api/v1 (docs: /api/docs; web chat: /chat)")
        names = [name for name in names if name != API_PLATFORM]
    if names:
        say(f"adapters: {', '.join(names)}")
    else:
        say(
            "adapters: none configured (set SLACK_BOT_TOKEN or TELEGRAM_BOT_TOKEN);"
            " serving health and the HTTP API only"
        )
