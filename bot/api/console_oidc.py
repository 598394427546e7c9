"""The admin console's sign-in through the organisation's identity provider (OIDC_ISSUER).

`GET /admin/oidc/start` sends the browser to the provider; the state, nonce and
PKCE verifier wait in a short-lived cookie (HttpOnly, SameSite=Lax: the
provider's redirect back is a top-level navigation from its site, path
/admin/oidc). `GET /admin/oidc/callback` checks them (bot.core.admin.console_oidc),
sets the console's session cookie and sends the browser to `/admin`; a person who
is not an admin, or a sign-in that cannot be trusted, gets a short page saying
so and no session. The redirect URI is PUBLIC_BASE_URL + `/admin/oidc/callback`
(unset: this request's own address). Both answer 404 while OIDC_ISSUER is unset.
"""

from __future__ import annotations

import html
import logging
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from bot.api.console_auth import (
    console_of,
    failed,
    served_over_https,
    set_session_cookie,
    throttled,
)
from bot.api.console_page import HEADERS
from bot.api.errors import ApiError
from bot.core.admin.console_oidc import (
    ConsoleOidc,
    OidcRefusedError,
    Pending,
    ProviderUnavailableError,
)
from bot.settings import Settings
from textkit.catalog import say

logger = logging.getLogger(__name__)
router = APIRouter(prefix="/admin/oidc", include_in_schema=False)
CALLBACK = "/admin/oidc/callback"
PENDING_COOKIE = "ragbot_oidc"
PENDING_S = 600  # a sign-in not finished in ten minutes starts again
_STATUS = {"not_admin": 403, "provider": 502}


def _oidc(request: Request) -> ConsoleOidc:
    oidc = console_of(request).oidc
    if oidc is None:
        raise ApiError(404, "not_found", "Sign-in through an identity provider is not set up.")
    return oidc


def redirect_uri(request: Request) -> str:
    """Where the provider sends the browser back: under PUBLIC_BASE_URL when set."""
    settings: Settings = request.app.state.settings
    base = settings.public_base_url or str(request.base_url).rstrip("/")
    return base.rstrip("/") + CALLBACK


def _language(request: Request) -> str:
    """The page's language from Accept-Language (the console's three; English else)."""
    wanted = request.headers.get("accept-language", "").lower()
    first = wanted.split(",")[0].split(";")[0].strip()
    if first.startswith("zh"):
        traditional = any(t in first for t in ("hant", "tw", "hk", "mo"))
        return "zh-hant" if traditional else "zh-hans"
    return "en"


def _page(request: Request, reason: str, email: str = "") -> HTMLResponse:
    """A short page saying why there is no session, with a way back to the console."""
    language = _language(request)
    key = "admin:oidc_not_admin" if reason == "not_admin" else "admin:oidc_failed"
    if reason == "rate_limited":
        key = "admin:oidc_throttled"
    text = html.escape(say(key, language, email=email))
    back = html.escape(say("admin:oidc_back", language))
    title = html.escape(say("admin:title", language))
    body = (
        f'<!doctype html><html lang="{language}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{title}</title><link rel="stylesheet" href="/admin/static/console.css">'
        f'</head><body><main class="console"><h1>{title}</h1>'
        f'<p id="oidc-refused" class="notice" data-reason="{html.escape(reason)}">{text}</p>'
        f'<p><a href="/admin">{back}</a></p></main></body></html>'
    )
    status = 429 if reason == "rate_limited" else _STATUS.get(reason, 400)
    return HTMLResponse(body, status_code=status, headers=HEADERS)


@router.get("/start")
async def start(request: Request) -> Response:
    """Send the browser to the identity provider's sign-in."""
    oidc = _oidc(request)
    try:
        pending = await oidc.begin(redirect_uri(request))
    except ProviderUnavailableError as exc:
        logger.warning("the identity provider's discovery failed: %s", exc)
        return _page(request, "provider")
    response = RedirectResponse(pending.url, status_code=303, headers={"Cache-Control": "no-store"})
    response.set_cookie(
        PENDING_COOKIE,
        f"{pending.state}.{pending.nonce}.{pending.verifier}",
        max_age=PENDING_S,
        path="/admin/oidc",
        httponly=True,
        secure=served_over_https(request),
        samesite="lax",
    )
    return response


def _pending(request: Request) -> Pending:
    """The state, nonce and verifier the browser kept (empty ones when it kept none)."""
    parts = request.cookies.get(PENDING_COOKIE, "").split(".")
    if len(parts) != 3:
        return Pending("", "", "", "")
    return Pending("", parts[0], parts[1], parts[2])


@router.get("/callback")
async def callback(
    request: Request,
    code: Annotated[str, Query(max_length=2000)] = "",
    state: Annotated[str, Query(max_length=200)] = "",
    error: Annotated[str, Query(max_length=200)] = "",
) -> Response:
    """Finish the sign-in: a session and back to `/admin`, or a page saying why not."""
    oidc = _oidc(request)
    try:
        throttled(request)
    except ApiError:
        return _page(request, "rate_limited")
    if error or not code:  # the person cancelled at the provider, or it refused them
        response: Response = _page(request, "cancelled")
    else:
        try:
            opened = await oidc.finish(code, state, _pending(request), redirect_uri(request))
        except OidcRefusedError as exc:
            failed(request)
            response = _page(request, exc.reason, exc.email)
        else:
            response = RedirectResponse("/admin", status_code=303)
            response.headers["Cache-Control"] = "no-store"
            set_session_cookie(request, response, opened.session_id)
    # one use only: a replayed callback finds no state
    response.delete_cookie(PENDING_COOKIE, path="/admin/oidc", httponly=True, samesite="lax")
    return response
