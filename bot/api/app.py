"""The API adapter: a FastAPI app on the shared HTTP server, over the serving core, and
the MCP tools at `/mcp` (`bot.api.mcp_http`).

`ragbot serve` mounts it after the chat platforms' webhooks, on the same port
as `/healthz`. It is always mounted; with no API key made yet every call gets
404 `api_off`. OpenAPI schema at `/api/openapi.json`, the endpoints listed at
`/api/docs` (a plain page: no Swagger UI from a CDN). Questions go through the
inbox (`bot.api.waiting`). The citations' source view (`/sources/…`, signed links)
is served here too, with or without an API key.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute, Mount

from bot.api import (
    ask,
    console,
    console_auth,
    console_oidc,
    console_page,
    docs_page,
    errors,
    handoff,
    history,
    manage,
    media,
    openai_chat,
    sources,
    staff,
    staff_page,
    turns,
    webchat,
)
from bot.api.auth import AuditCalls, CallerLimits
from bot.api.cases import ApiCases
from bot.api.gate import BodyGate
from bot.api.mcp_http import McpEndpoint
from bot.api.waiting import Waiting
from bot.core.handoff import mailbox
from bot.core.platform import Platform
from bot.core.serving import ServingCore
from bot.settings import API_PLATFORM, Settings, reveal

logger = logging.getLogger(__name__)


def build_api(core: ServingCore, settings: Settings) -> FastAPI:
    """The API's app: routes, JSON errors, CORS, the per-call audit, the upload size gate."""
    api = FastAPI(
        title="ragbot API",
        version="1",
        summary="Answers from the organisation's own documents, with citations.",
        docs_url=None,  # Swagger UI would load from a CDN: a plain page instead
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    api.state.core = core
    api.state.knowledge = core.knowledge  # the management routes' admin part
    api.state.settings = settings
    api.state.limits = CallerLimits(settings)  # counted in this process, per caller
    # calls waiting for their answers (see ApiAdapter.close); a retried call's answer kept
    api.state.waiting = Waiting(core, keep=turns.kept)
    errors.install(api)
    docs_page.install(api)
    api.include_router(ask.router)
    api.include_router(media.router)
    api.include_router(manage.router)
    api.include_router(handoff.router)
    api.include_router(history.router)
    api.include_router(webchat.router)
    api.include_router(sources.router)  # citations' source view (signed links)
    api.include_router(staff.router)
    api.include_router(staff_page.router)
    api.include_router(openai_chat.router)
    api.include_router(console_auth.router)  # the admin console (/admin)
    api.include_router(console_oidc.router)  # its sign-in through an identity provider
    api.include_router(console.router)
    api.include_router(console_page.router)
    api.add_middleware(AuditCalls, core=core)
    media_limit = max(core.upload_limit, settings.stt_max_bytes)  # a photo, or a recording
    api.add_middleware(BodyGate, core=core, file_limit=core.upload_limit, media_limit=media_limit)
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


class ApiAdapter:
    """The HTTP API as an adapter: routes on the shared server, nothing to start or stop
    (a draining core answers 503; the turns in flight finish with the core's drain)."""

    name = API_PLATFORM

    def __init__(self, core: ServingCore, settings: Settings) -> None:
        self._core = core
        self._settings = settings
        self._app = build_api(core, settings)
        # questions are answered to the waiting call; staff replies to web askers wait in
        # their conversation's mailbox
        waiting: Waiting = self._app.state.waiting
        core.plug(Platform(API_PLATFORM, render=waiting.render, channel=mailbox.channel()))
        core.register_cases(API_PLATFORM, ApiCases())
        # the MCP tools at /mcp, answered through the same waiting calls
        self._mcp = McpEndpoint(core, waiting)

    @property
    def routes(self) -> Sequence[BaseRoute]:
        """`/mcp`, then everything under the server's root the other adapters did not
        claim: mount last."""
        return [self._mcp.route, Mount("", app=self._app)]

    async def start(self) -> None:
        """Start building the MCP endpoint (the API serves meanwhile); a web chat key
        unfit for visitors is said at once (the page then answers 503 until it is fixed)."""
        self._mcp.start()
        key = reveal(self._settings.web_chat_api_key)
        if key:
            grant = await self._core.verify_key(key)
            problem = webchat.key_problem(grant, self._core.screened)
            if problem is not None:
                logger.warning("the web chat is off: WEB_CHAT_API_KEY %s", problem)

    async def stop(self) -> None:
        """Nothing to stop: calls during the drain get 503 from the core's state."""

    async def close(self) -> None:
        """Stop the turns still streaming after the core's drain: each caller is told
        `draining` and the connection ends, so the server can stop (uvicorn waits for
        open responses); then the MCP endpoint's session manager ends."""
        waiting: Waiting = self._app.state.waiting
        waiting.stop_all()
        await self._mcp.close()
