"""`/mcp`: the MCP tools over streamable HTTP on the shared server, for API key holders.

The SDK's session manager runs stateless (each POST stands alone: any worker behind a
load balancer answers it) and answers JSON. Its task group must run for the life of
the server: `start` opens it in a task of its own on the core's loop (where every
request is handled, `bot.app.bridge`), `close` ends it. A call without a valid key
is refused before the SDK reads it (401, or 404 while no key exists); each tool
checks the key again (`bot.api.mcp_tools`). Until started, or while draining: 503.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from bot.api.errors import error_response
from bot.core.serving import ServingCore

PATH = "/mcp"
_SEND_KEY = "Send Authorization: Bearer <key>."


class McpEndpoint:
    """The `/mcp` route and the session manager's lifetime."""

    def __init__(self, core: ServingCore, server: MCPServer[Any]) -> None:
        """Serve `server`'s tools; keys are checked with `core`."""
        self._core = core
        # the SDK's DNS-rebinding check would pin the Host to localhost; a bearer key,
        # which a rebound page never holds, is what guards this route
        server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self._manager: StreamableHTTPSessionManager = server.session_manager
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._ready = False

    @property
    def route(self) -> Route:
        """The route to mount before the API's catch-all mount."""
        return Route(PATH, endpoint=self, methods=["GET", "POST", "DELETE"])

    async def start(self) -> None:
        """Open the session manager's task group (in a task that holds it to `close`)."""
        started = asyncio.Event()

        async def hold() -> None:
            async with self._manager.run():
                self._ready = True
                started.set()
                await self._stop.wait()
            self._ready = False

        self._task = asyncio.ensure_future(hold())
        waiting = asyncio.ensure_future(started.wait())
        await asyncio.wait([self._task, waiting], return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if self._task.done():
            self._task.result()  # it failed to start: raised here

    async def close(self) -> None:
        """End the session manager (calls still open are cancelled)."""
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """An MCP call: the key checked, then handed to the SDK."""
        if not self._ready or self._core.closing:
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
