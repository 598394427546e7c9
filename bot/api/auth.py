"""Who calls: the bearer key checked by the core, the rate limit, the audit of every call."""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from typing import Annotated, Any

from fastapi import Depends, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.api.clients import MinuteCounts, client_address, trusted_networks
from bot.api.errors import ApiError
from bot.api.waiting import Waiting
from bot.core.admin.audit import Actor
from bot.core.messages import Grant
from bot.core.serving import ServingCore
from bot.settings import API_PLATFORM, Settings, reveal

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


def _limits(request: Request) -> CallerLimits:
    limits: CallerLimits = request.app.state.limits
    return limits


async def caller(request: Request) -> Grant:
    """The grant of the call's `Authorization: Bearer <key>` (401 without a valid one).

    While the worker drains: 503 (another worker answers); with no key at all the
    API is off: 404. A web chat visitor over WEB_CHAT_CLIENT_RATE_PER_MINUTE: 429.
    """
    grant = await _grant(request)
    limits = _limits(request)
    if limits.web_key(request) and limits.visitors.over(
        limits.address(request), limits.settings.web_chat_client_rate_per_minute
    ):
        raise too_many("Too many calls from this address; wait for the next minute.")
    return grant


async def poller(request: Request) -> Grant:
    """`caller` for a poll for staff replies: counted on its own (per caller's address and
    per key, API_POLLS_PER_MINUTE and API_POLLS_PER_KEY_PER_MINUTE), never audited when
    over (a script must not fill the audit log)."""
    grant = await _grant(request)
    limits = _limits(request)
    request.state.audited = False  # the route says when a poll is worth a row
    settings = limits.settings
    by_key = limits.polls.over(f"key:{grant.key_id}", settings.api_polls_per_key_per_minute)
    by_address = limits.polls.over(
        f"address:{grant.key_id}:{limits.address(request)}", settings.api_polls_per_minute
    )
    if by_key or by_address:
        raise too_many("Too many polls; wait for the next minute.")
    return grant


async def _grant(request: Request) -> Grant:
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


class CallerLimits:
    """The counts kept in this process per caller (see `bot.api.clients`)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.visitors = MinuteCounts()  # the web chat key's calls, per caller's address
        self.polls = MinuteCounts()  # polls for staff replies, per address and per key
        self.sign_ins = MinuteCounts()  # the console's failed sign-ins, per caller's address
        self._trusted = trusted_networks(settings)

    def address(self, request: Request) -> str:
        """The caller's address (a trusted proxy's forwarded one)."""
        return client_address(request, self._trusted)

    def web_key(self, request: Request) -> bool:
        """True when the call carries WEB_CHAT_API_KEY (every visitor of the site holds it)."""
        key = reveal(self.settings.web_chat_api_key)
        bearer = request.headers.get("authorization", "").partition(" ")[2]
        if not key:
            return False
        return secrets.compare_digest(bearer.strip().encode(), key.encode())


class AuditCalls:
    """Writes one audit row per call made with a valid key: `api:<METHOD> <route>`, the
    key's name and the HTTP status (after the response: a streamed answer when it ends).
    A route may set `request.state.audited = False` (an empty poll) to write none."""

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
            state = scope.get("state", {})
            grant: Any = state.get("grant")
            if isinstance(grant, Grant) and state.get("audited", True):
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
