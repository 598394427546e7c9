"""The HTTP server of `ragbot serve` and `ragbot worker`: bound before anything is said,
slow clients cut off.

The port is bound first, in the calling thread: a port in use is one line and a
failed start (non-zero exit, so a service manager restarts or alerts), never a
banner followed by nothing. uvicorn has no timeout on reading a request's line
and headers, nor on its body: a client trickling a byte at a time would hold a
connection for ever. `_GuardedH11` closes a connection whose headers are not in
within `HTTP_HEADER_TIMEOUT_SECONDS` of connecting (or of the last answer on a
kept-alive connection), or whose body is not in `HTTP_BODY_TIMEOUT_SECONDS`
after its headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import h11
import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from bot.settings import ConfigurationError, Settings

MAX_HEADER_BYTES = 16 * 1024  # a request line and headers larger than this: 400


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to `host:port` (listening starts with the server), or a one-line
    ConfigurationError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart's TIME_WAIT
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        why = "address already in use" if exc.errno == errno.EADDRINUSE else exc.strerror
        raise ConfigurationError(f"cannot listen on {host}:{port}: {why}") from None
    return sock


class _GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline on each request's headers and body."""

    header_timeout_s = 10.0
    body_timeout_s = 60.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._due: asyncio.TimerHandle | None = None
        self._phase: str | None = None  # "headers" or "body" while a deadline runs
        self._answered: object = None  # the last request before the awaited one

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm("headers", self.header_timeout_s)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self._phase == "headers" and self.cycle is not self._answered:
            self._disarm()  # a request's line and headers are in
            if self.conn.their_state is h11.SEND_BODY:
                self._arm("body", self.body_timeout_s)
        if self._phase == "body" and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # its body is in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.transport.is_closing() or not self.cycle.response_complete:
            return  # closed, or a pipelined request already being answered
        if self._phase is None:
            self._arm("headers", self.header_timeout_s)  # the next request, if any

    def _arm(self, phase: str, seconds: float) -> None:
        self._disarm()
        self._phase, self._answered = phase, self.cycle
        self._due = self.loop.call_later(seconds, self._late)

    def _disarm(self) -> None:
        if self._due is not None:
            self._due.cancel()
        self._due, self._phase = None, None

    def _late(self) -> None:
        self._due, self._phase = None, None
        if not self.transport.is_closing():
            self.transport.close()  # an app reading the body hears a disconnect


def server(app: ASGIApp, settings: Settings, host: str, port: int) -> uvicorn.Server:
    """The uvicorn server for `app`, with the timeouts and limits of `settings`."""
    protocol = type(
        "GuardedH11",
        (_GuardedH11,),
        {
            "header_timeout_s": settings.http_header_timeout_s,
            "body_timeout_s": settings.http_body_timeout_s,
        },
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol,
        lifespan="off",
        log_level="warning",
        access_log=False,
        log_config=None,  # uvicorn logs through our handlers (and their masking)
        limit_concurrency=settings.http_max_connections,
        # X-Forwarded-For and X-Forwarded-Proto from the proxies API_TRUSTED_PROXIES lists
        # only: uvicorn's default trusts 127.0.0.1, so a tunnel or a forwarder on this host
        # would let any caller choose its address (the per-address limits) and scheme
        proxy_headers=bool(settings.trusted_proxies()),
        forwarded_allow_ips=settings.trusted_proxies() or None,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        # open responses (an API stream) get this long once told to stop, not forever
        timeout_graceful_shutdown=max(1, int(settings.shutdown_grace_s)),
    )
    return _Server(config)


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling: the lifecycle owns SIGTERM/SIGINT."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def listen_in_thread(server: uvicorn.Server, sock: socket.socket) -> None:
    """Serve HTTP on `sock` from a thread with its own event loop.

    Slack wants an ack within 3 s: connections are taken and bytes read and
    written there even while the core's loop is busy; each request's handler
    runs on the core's loop (`bot.app.bridge`).
    """
    host, port = sock.getsockname()[:2]
    pool = ThreadPoolExecutor(1, thread_name_prefix="http")
    try:
        await asyncio.get_running_loop().run_in_executor(pool, server.run, [sock])
    except SystemExit as exc:  # uvicorn exits when it cannot start
        raise RuntimeError(f"cannot listen on {host}:{port}") from exc
    finally:
        # never a blocking join here: the HTTP thread may be waiting on this very loop
        pool.shutdown(wait=False)
    if not server.started:
        raise RuntimeError(f"cannot listen on {host}:{port}")
