"""`/mcp`: the MCP tools over streamable HTTP on the shared server, for API key holders.

The SDK's session manager runs stateless (each POST stands alone: any worker behind a
load balancer answers it) and answers JSON. Its task group must run for the life of
the server: `start` opens it in a task of its own on the core's loop (where every
request is handled, `bot.app.bridge`), `close` ends it. The SDK is imported and the
server built in a thread by that task, so the worker is healthy as soon as it was
without MCP (the SDK's imports are seconds of CPU on a busy machine); a call that
comes meanwhile waits for it. A call without a valid key is refused before the SDK
reads it (401, or 404 while no key exists); each tool checks the key again
(`bot.api.mcp_tools`). While draining, or when MCP could not start: 503.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from bot.api.errors import error_response
from bot.api.gate import CHAT_BODY_LIMIT
from bot.api.waiting import Waiting
from bot.core.serving import ServingCore

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

logger = logging.getLogger(__name__)
PATH = "/mcp"
READY_WAIT_S = 60.0  # the longest a call waits for the MCP server to be built
_SEND_KEY = "Send Authorization: Bearer <key>."


def _session_manager(core: ServingCore, waiting: Waiting) -> StreamableHTTPSessionManager:
    """The bot's MCP server and its session manager (blocking: imports the SDK)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from bot.api.mcp_tools import McpTools, build_server

    server = build_server(McpTools(core, waiting))
    # the SDK's DNS-rebinding check would pin the Host to localhost; a bearer key,
    # which a rebound page never holds, is what guards this route
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        max_request_body_size=CHAT_BODY_LIMIT,  # a tool call is a question or a query
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    manager: StreamableHTTPSessionManager = server.session_manager
    return manager


class McpEndpoint:
    """The `/mcp` route and the session manager's lifetime."""

    def __init__(self, core: ServingCore, waiting: Waiting) -> None:
        """Serve the MCP tools over `core`, questions answered through `waiting`."""
        self._core = core
        self._waiting = waiting
        self._manager: Any = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def route(self) -> Route:
        """The route to mount before the API's catch-all mount."""
        return Route(PATH, endpoint=self, methods=["GET", "POST", "DELETE"])

    def start(self) -> None:
        """Build the MCP server (in a thread) and hold its task group open until `close`."""
        self._task = asyncio.ensure_future(self._hold())

    async def _hold(self) -> None:
        try:
            manager = await asyncio.to_thread(_session_manager, self._core, self._waiting)
            async with manager.run():
                self._manager = manager
                self._ready.set()
                await self._stop.wait()
        except Exception:  # the rest of the API serves on; /mcp answers 503
            logger.exception("MCP at /mcp could not start")
        finally:
            self._manager = None

    async def ready(self, timeout: float) -> bool:
        """True once the MCP server runs (waiting up to `timeout` seconds for it)."""
        if self._task is None or self._task.done():
            return self._manager is not None
        waiting = asyncio.ensure_future(self._ready.wait())
        await asyncio.wait([waiting, self._task], timeout=timeout, return_when="FIRST_COMPLETED")
        waiting.cancel()
        return self._manager is not None

    async def close(self) -> None:
        """End the session manager (calls still open are cancelled)."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """An MCP call: the key checked, then handed to the SDK."""
        if self._core.closing or not await self.ready(READY_WAIT_S):
            refusal = error_response(
                503, "draining", "MCP is not serving here; retry.", headers={"Retry-After": "5"}
            )
            await refusal(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        scheme, _, key = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
        bearer = key.strip() if scheme.lower() == "bearer" else ""
        on, grant = await self._core.admit_key(bearer)
        if not on:
            off = "The HTTP API is off: no API key has been created."
            await error_response(404, "api_off", off)(scope, receive, send)
            return
        if grant is None:
            challenge = {"WWW-Authenticate": "Bearer"}
            message = "Unknown or revoked API key." if bearer else _SEND_KEY
            await error_response(401, "unauthorized", message, headers=challenge)(
                scope, receive, send
            )
            return
        await self._manager.handle_request(scope, receive, send)
