"""The API adapter: a FastAPI app on the shared HTTP server, over the serving core.

`ragbot serve` mounts it after the chat platforms' webhooks, on the same port
as `/healthz`. It is always mounted; with no API key made yet every call gets
404 `api_off`. OpenAPI schema at `/api/openapi.json`, interactive docs at
`/api/docs`. Handlers run on the HTTP thread's loop and hand core work over
(`bot.core.loops`).
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.api import ask, errors, handoff, manage, webchat
from bot.api.auth import AuditCalls
from bot.api.cases import ApiCases
from bot.api.errors import error_response
from bot.core import mailbox
from bot.core.dispatcher import ServingCore
from bot.settings import API_PLATFORM, Settings

UPLOAD_PATH = "/api/v1/documents"
MULTIPART_SLACK = 64 * 1024  # what a multipart body may add around the file itself


def build_api(core: ServingCore, settings: Settings) -> FastAPI:
    """The API's app: routes, JSON errors, CORS, the per-call audit, the upload size gate."""
    api = FastAPI(
        title="ragbot API",
        version="1",
        summary="Answers from the organisation's own documents, with citations.",
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    api.state.core = core
    api.state.settings = settings
    errors.install(api)
    api.include_router(ask.router)
    api.include_router(manage.router)
    api.include_router(handoff.router)
    api.include_router(webchat.router)
    api.add_middleware(AuditCalls, core=core)
    api.add_middleware(BodyLimit, limit=core.admin.policy.max_bytes)
    origins = settings.cors_origins()
    if origins:
        api.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key"],
            expose_headers=["Retry-After"],
            max_age=600,
        )
    return api


class BodyLimit:
    """411/413 for an upload before its body is read: FastAPI parses a multipart body
    before any handler could look at its size."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self._app = app
        self._limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == UPLOAD_PATH:
            headers = dict(scope.get("headers") or ())
            length = headers.get(b"content-length", b"").decode("latin-1")
            refusal = None
            if not length.isdigit():
                refusal = error_response(
                    411, "length_required", "Send the upload's Content-Length."
                )
            elif int(length) > self._limit + MULTIPART_SLACK:
                message = manage.too_large_message(self._limit)
                refusal = error_response(413, "too_large", message, "file")
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self._app(scope, receive, send)


class ApiAdapter:
    """The HTTP API as an adapter: routes on the shared server, nothing to start or stop
    (a draining core answers 503; the turns in flight finish with the core's drain)."""

    name = API_PLATFORM

    def __init__(self, core: ServingCore, settings: Settings) -> None:
        self._app = build_api(core, settings)
        # staff replies to web askers wait in their conversation's mailbox
        core.register_sender(API_PLATFORM, mailbox.channel())
        core.handoff.rooms.register(API_PLATFORM, ApiCases())

    @property
    def routes(self) -> Sequence[BaseRoute]:
        """Everything under the server's root the other adapters did not claim: mount last."""
        return [Mount("", app=self._app)]

    async def start(self) -> None:
        """Nothing to connect to."""

    async def stop(self) -> None:
        """Nothing to stop: calls during the drain get 503 from the core's state."""

    async def close(self) -> None:
        """Nothing to release."""
