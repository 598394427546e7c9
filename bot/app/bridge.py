"""The one bridge between `ragbot serve`'s two event loops: requests are handled on the core's.

uvicorn runs in a thread with its own loop (connections, reading and writing bytes),
so webhooks are read and answered while the core's loop is busy. Every request's
ASGI handler runs on the core's loop, where the database pool, the inbox and the
turns' streams live; its `receive` and `send` hop back to the HTTP loop. No code
on the HTTP side hops by hand. A webhook's body is read whole on the HTTP loop,
capped (`WebhookBodyCap`), before its handler is handed to the core's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future
from typing import Any

from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.core.delivery.http import WEBHOOK_BODY_LIMIT, WebhookBodyCap, build_app
from storage.db import Database, head_revision


def on_core_loop(app: ASGIApp, core: asyncio.AbstractEventLoop) -> ASGIApp:
    """`app`, each of its calls run on `core` (at once when the server runs there too)."""

    async def bridged(scope: Scope, receive: Receive, send: Send) -> None:
        http = asyncio.get_running_loop()
        if http is core:
            await app(scope, receive, send)
            return

        async def handle() -> None:
            await app(scope, _back(receive, http), _back(send, http))

        handled: Future[None] = asyncio.run_coroutine_threadsafe(handle(), core)
        # cancelled here (the server stops, the client left): cancelled there too
        await asyncio.wrap_future(handled)

    return bridged


def _back(
    call: Callable[..., Awaitable[Any]], http: asyncio.AbstractEventLoop
) -> Callable[..., Awaitable[Any]]:
    """`call` (the server's receive or send), awaited on the HTTP loop from the core's."""

    async def hop(*args: Any) -> Any:
        async def there() -> Any:
            return await call(*args)

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(there(), http))

    return hop


def serving_app(
    db: Database,
    routes: Sequence[BaseRoute],
    draining: Callable[[], bool],
    core: asyncio.AbstractEventLoop,
    webhook_body_limit: int = WEBHOOK_BODY_LIMIT,
) -> ASGIApp:
    """The app `ragbot serve` runs: `/healthz` and the adapters' routes, handled on `core`,
    a webhook's body at most `webhook_body_limit` bytes (read on the HTTP loop)."""
    app = on_core_loop(build_app(db, head_revision(), routes, draining), core)
    return WebhookBodyCap(app, webhook_body_limit)
