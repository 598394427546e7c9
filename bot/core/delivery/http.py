"""The one ASGI app `ragbot serve` and `ragbot worker` run: health, plus adapters' routes.

`/healthz` says whether this process can serve (the database, its migrations,
draining), with the queues' depth and the synced sources whose last sync failed.

`WebhookBodyCap` stands in front of it: outside `/api/` (whose own gate sizes its
bodies) a request's body is read here, up to the webhook cap, before any route
parses a byte of it (bolt would `json.loads` an unsigned 150 MB body before
checking its signature).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from storage.db import UNAVAILABLE, Database
from storage.repositories import inbox as inbox_repo
from storage.repositories import outbox as outbox_repo
from storage.repositories import sources as sources_repo

HEALTH_TIMEOUT_S = 5.0
# the errors of a database that is down: HTTP callers get 503 (adapters see them here)
DATABASE_DOWN = UNAVAILABLE
QUEUE_DETAIL_TTL_S = 5.0  # how stale the queue figures of /healthz may be
WEBHOOK_BODY_LIMIT = 1024 * 1024  # WEBHOOK_MAX_BODY_KB's default: Slack's bodies are a few KB
API_PREFIX = "/api/"  # the HTTP API sizes its own bodies (uploads are larger)


Figures = Callable[[AsyncSession], Awaitable[dict[str, object]]]


async def queue_figures(session: AsyncSession) -> dict[str, object]:
    """How deep the inbox and outbox are."""
    return {**await inbox_repo.depth(session), **await outbox_repo.counts(session)}


class QueueDetail:
    """A detail of `/healthz` (by default the inbox and outbox figures), read at most
    every `ttl_s` seconds: load balancers probe every few seconds each, and the detail
    counts table rows."""

    def __init__(self, ttl_s: float = QUEUE_DETAIL_TTL_S, figures: Figures = queue_figures) -> None:
        self._ttl_s = ttl_s
        self._read_at = -ttl_s
        self._reader = figures
        self._figures: dict[str, object] | None = None

    async def read(self, db: Database) -> dict[str, object] | str:
        """The figures (at most `ttl_s` old), or why they could not be read."""
        now = time.monotonic()
        if self._figures is not None and now - self._read_at < self._ttl_s:
            return self._figures
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT_S), db.sessions() as session:
                figures = await self._reader(session)
        except Exception as exc:  # the detail is a bonus: health stands on the other checks
            return f"unavailable ({type(exc).__name__})"
        self._figures, self._read_at = figures, now
        return figures


async def health(
    db: Database,
    head: str | None,
    draining: bool = False,
    queues: QueueDetail | None = None,
    sources: QueueDetail | None = None,
) -> tuple[int, dict[str, object]]:
    """(HTTP status, body): 200 when the database answers, its migrations are current and
    the process is not draining; the body also says how deep the inbox and outbox are,
    and which synced sources failed their last sync (reported, never a 503: a website
    that is down must not take the bot out of its load balancer)."""
    try:
        async with asyncio.timeout(HEALTH_TIMEOUT_S), db.engine.connect() as conn:
            revision = (
                await conn.execute(text("SELECT version_num FROM alembic_version"))
            ).scalar()
    except Exception as exc:
        return 503, {"status": "unavailable", "database": f"unreachable ({type(exc).__name__})"}
    if revision != head:
        body = {"status": "unavailable", "database": "ok", "revision": revision, "expected": head}
        return 503, body
    body = {"status": "draining" if draining else "ok", "database": "ok", "revision": revision}
    body["queues"] = await (queues or QueueDetail(0.0)).read(db)
    body["sources"] = await (sources or QueueDetail(0.0, sources_repo.health)).read(db)
    # draining: a load balancer must stop sending here at once (the body says why)
    return (503 if draining else 200), body


def build_app(
    db: Database,
    head: str | None,
    routes: Sequence[BaseRoute] = (),
    draining: Callable[[], bool] = lambda: False,
) -> Starlette:
    """`GET /healthz` and whatever routes the running adapters need."""
    queues, sources = QueueDetail(), QueueDetail(figures=sources_repo.health)

    async def healthz(request: Request) -> JSONResponse:
        del request
        if draining():  # at once, without asking the database
            return JSONResponse({"status": "draining"}, status_code=503)
        status, body = await health(db, head, queues=queues, sources=sources)
        return JSONResponse(body, status_code=status)

    return Starlette(routes=[Route("/healthz", healthz, methods=["GET"]), *routes])


class WebhookBodyCap:
    """413 for a body over `limit` bytes outside `/api/`, read whole before the app sees it.

    A declared Content-Length over the cap is refused before a byte is read; a
    streamed (chunked) body is refused once it passes the cap. Either way the
    connection is closed, so the rest of the body is never read. (How long the body
    may take is the HTTP server's: `bot.app.http_server`.)
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self._app = app
        self._limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or str(scope["path"]).startswith(API_PREFIX):
            await self._app(scope, receive, send)
            return
        length = dict(scope.get("headers") or ()).get(b"content-length", b"").decode("latin-1")
        if length.strip().isdigit() and int(length) > self._limit:
            await _too_large(send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left (or was cut off) before its body was in
            body += message.get("body", b"")
            if len(body) > self._limit:
                await _too_large(send)
                return
            if not message.get("more_body", False):
                break
        await self._app(scope, replay_body(bytes(body), receive), send)


async def _too_large(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"connection", b"close"),  # the rest of the body is not wanted
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"request body too large"})


def replay_body(body: bytes, receive: Receive) -> Receive:
    """The body read already, then the connection's own messages (a disconnect, which
    a streamed reply listens for)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
