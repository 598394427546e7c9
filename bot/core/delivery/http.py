"""The one ASGI app `ragbot serve` and `ragbot worker` run: health, plus adapters' routes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from sqlalchemy import text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from storage.db import UNAVAILABLE, Database
from storage.repositories import inbox as inbox_repo
from storage.repositories import outbox as outbox_repo

HEALTH_TIMEOUT_S = 5.0
# the errors of a database that is down: HTTP callers get 503 (adapters see them here)
DATABASE_DOWN = UNAVAILABLE
QUEUE_DETAIL_TTL_S = 5.0  # how stale the queue figures of /healthz may be


class QueueDetail:
    """The inbox and outbox figures of `/healthz`, read at most every `ttl_s` seconds:
    load balancers probe every few seconds each, and the detail counts table rows."""

    def __init__(self, ttl_s: float = QUEUE_DETAIL_TTL_S) -> None:
        self._ttl_s = ttl_s
        self._read_at = -ttl_s
        self._figures: dict[str, object] | None = None

    async def read(self, db: Database) -> dict[str, object] | str:
        """The figures (at most `ttl_s` old), or why they could not be read."""
        now = time.monotonic()
        if self._figures is not None and now - self._read_at < self._ttl_s:
            return self._figures
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT_S), db.sessions() as session:
                figures: dict[str, object] = {
                    **await inbox_repo.depth(session),
                    **await outbox_repo.counts(session),
                }
        except Exception as exc:  # the detail is a bonus: health stands on the other checks
            return f"unavailable ({type(exc).__name__})"
        self._figures, self._read_at = figures, now
        return figures


async def health(
    db: Database, head: str | None, draining: bool = False, queues: QueueDetail | None = None
) -> tuple[int, dict[str, object]]:
    """(HTTP status, body): 200 when the database answers, its migrations are current and
    the process is not draining; the body also says how deep the inbox and outbox are."""
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
    # draining: a load balancer must stop sending here at once (the body says why)
    return (503 if draining else 200), body


def build_app(
    db: Database,
    head: str | None,
    routes: Sequence[BaseRoute] = (),
    draining: Callable[[], bool] = lambda: False,
) -> Starlette:
    """`GET /healthz` and whatever routes the running adapters need."""
    queues = QueueDetail()

    async def healthz(request: Request) -> JSONResponse:
        del request
        if draining():  # at once, without asking the database
            return JSONResponse({"status": "draining"}, status_code=503)
        status, body = await health(db, head, queues=queues)
        return JSONResponse(body, status_code=status)

    return Starlette(routes=[Route("/healthz", healthz, methods=["GET"]), *routes])
