"""The one ASGI app `ragbot serve` and `ragbot worker` run: health, plus adapters' routes."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from sqlalchemy import text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from bot.core.loops import on_core_loop
from storage.db import Database

HEALTH_TIMEOUT_S = 5.0


async def health(db: Database, head: str | None) -> tuple[int, dict[str, object]]:
    """(HTTP status, body): 200 when the database answers and its migrations are current."""
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
    return 200, {"status": "ok", "database": "ok", "revision": revision}


def build_app(db: Database, head: str | None, routes: Sequence[BaseRoute] = ()) -> Starlette:
    """`GET /healthz` and whatever routes the running adapters need."""

    async def healthz(request: Request) -> JSONResponse:
        del request
        status, body = await on_core_loop(health(db, head))
        return JSONResponse(body, status_code=status)

    return Starlette(routes=[Route("/healthz", healthz, methods=["GET"]), *routes])
