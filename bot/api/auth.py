"""Who calls: the bearer key checked by the core, the rate limit, the audit of every call."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import Annotated, Any

from fastapi import Depends, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.api.errors import ApiError
from bot.api.waiting import Waiting
from bot.core.admin.audit import Actor
from bot.core.messages import Grant
from bot.core.serving import ServingCore
from bot.settings import API_PLATFORM

logger = logging.getLogger(__name__)
DRAIN_RETRY_S = 5


def core_of(request: Request) -> ServingCore:
    """The serving core the app was built over."""
    core: ServingCore = request.app.state.core
    return core


def waiting_of(request: Request) -> Waiting:
    """The app's calls waiting for their answers from the inbox."""
    waiting: Waiting = request.app.state.waiting
    return waiting


def draining() -> ApiError:
    """503: this worker is shutting down; another one answers."""
    headers = {"Retry-After": str(DRAIN_RETRY_S)}
    return ApiError(503, "draining", "This worker is shutting down; retry.", headers=headers)


def retry_after() -> str:
    """Seconds until the rate-limit window (a calendar minute) turns."""
    return str(max(1, math.ceil(60 - time.time() % 60)))


def too_many(message: str) -> ApiError:
    """429 with the Retry-After a client should honour."""
    return ApiError(429, "rate_limited", message, headers={"Retry-After": retry_after()})


async def caller(request: Request) -> Grant:
    """The grant of the call's `Authorization: Bearer <key>` (401 without a valid one).

    While the worker drains: 503 (another worker answers); with no key at all the
    API is off: 404.
    """
    core = core_of(request)
    if core.closing:
        raise draining()
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    bearer = key.strip() if scheme.lower() == "bearer" else ""
    on, grant = await core.admit_key(bearer)
    if not on:
        raise ApiError(404, "api_off", "The HTTP API is off: no API key has been created.")
    challenge = {"WWW-Authenticate": "Bearer"}
    if not bearer:
        raise ApiError(401, "unauthorized", "Send Authorization: Bearer <key>.", headers=challenge)
    if grant is None:
        raise ApiError(401, "unauthorized", "Unknown or revoked API key.", headers=challenge)
    request.state.grant = grant
    return grant


async def counted_caller(request: Request) -> Grant:
    """`caller`, with the call counted in the key's rate limit (429 when over)."""
    grant = await caller(request)
    if not await core_of(request).count_call(grant):
        raise too_many("Too many calls with this key; wait for the next minute.")
    return grant


# a route's caller whose call counts in its key's rate limit
Caller = Annotated[Grant, Depends(counted_caller)]


def admin_only(grant: Grant) -> None:
    """403 unless the key is an admin key."""
    if not grant.admin:
        raise ApiError(403, "forbidden", "This needs an admin key (ragbot apikey create --admin).")


def actor(grant: Grant) -> Actor:
    """The admin actor of a key: audited under the key's name."""
    return Actor(API_PLATFORM, grant.name, grant.admin)


class AuditCalls:
    """Writes one audit row per call made with a valid key: `api:<METHOD> <route>`, the
    key's name and the HTTP status (after the response: a streamed answer when it ends)."""

    def __init__(self, app: ASGIApp, core: ServingCore) -> None:
        self._app = app
        self._core = core

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        status = {"code": 500}

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self._app(scope, receive, noting)
        finally:
            grant: Any = scope.get("state", {}).get("grant")
            if isinstance(grant, Grant):
                route = scope.get("route")
                path = getattr(route, "path", None) or scope.get("path", "")
                action = f"api:{scope['method']} {path}"
                # the URL names what was acted on, except a conversation (its id is its secret)
                target = path if "conversation" in path else str(scope.get("path", ""))[:200]
                await self._audit(grant, action, target, str(status["code"]))

    async def _audit(self, grant: Grant, action: str, target: str, result: str) -> None:
        write = self._core.audit(actor(grant), action, target, result)
        # shielded: a client that hung up cancels the response, not the audit row
        task = asyncio.ensure_future(write)
        try:
            await asyncio.shield(task)
        except Exception:  # the call is answered; a lost audit row is logged, not raised
            logger.exception("could not audit %s by key %s", action, grant.name)
