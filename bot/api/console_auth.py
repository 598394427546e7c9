"""Who is signed in to the admin console: the session cookie, its CSRF token, its origin.

`POST /admin/session` takes an admin API key once and sets the session cookie
(HttpOnly, SameSite=Strict, Secure over https or under an https PUBLIC_BASE_URL,
path /admin) holding a random id; the response carries the CSRF token, which the
page sends back in `X-CSRF-Token` on every change (double submit: the cookie alone is not enough).
Every change must also come from this site (`Origin` is this host). A key that
is not an admin key is refused (403 `not_admin`). `DELETE /admin/session` signs out.

Failed sign-ins (a wrong key here, a refused identity-provider sign-in in
bot.api.console_oidc) are counted per client address: past
ADMIN_SIGN_IN_FAILURES_PER_MINUTE, the address is answered 429 until the minute
turns, and no audit row is written for it (a script must not fill the audit log).
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field

from bot.api.auth import CallerLimits, core_of, draining, too_many
from bot.api.errors import ApiError
from bot.core.admin.console import AdminConsole
from bot.core.admin.console_sessions import ConsoleSession, SignInRefusedError

COOKIE = "ragbot_admin"
CSRF_HEADER = "x-csrf-token"
router = APIRouter(prefix="/admin", include_in_schema=False)


def console_of(request: Request) -> AdminConsole:
    """The serving core's admin console part."""
    return core_of(request).admin_console


def _limits(request: Request) -> CallerLimits:
    limits: CallerLimits = request.app.state.limits
    return limits


def throttled(request: Request) -> None:
    """429 when the caller's address failed to sign in too often this minute (before any
    attempt: a throttled attempt is neither checked nor audited)."""
    limits = _limits(request)
    most = limits.settings.admin_sign_in_failures_per_minute
    if most and limits.sign_ins.seen(limits.address(request)) >= most:
        raise too_many("Too many failed sign-ins from this address; wait for the next minute.")


def failed(request: Request) -> None:
    """Count a failed sign-in of the caller's address."""
    limits = _limits(request)
    limits.sign_ins.over(limits.address(request), limits.settings.admin_sign_in_failures_per_minute)


def same_origin(request: Request) -> None:
    """403 unless the request's `Origin` is this site (a change from another page)."""
    origin = request.headers.get("origin", "")
    host = request.headers.get("host", "")
    if not origin or not host or urlsplit(origin).netloc.lower() != host.lower():
        raise ApiError(403, "bad_origin", "Changes are accepted from the console's own page only.")


async def signed_in(request: Request) -> ConsoleSession:
    """The session of the request's cookie (401 `signed_out` without a live one). Its key
    is the call's grant: the audit names it; reads are not audited, changes are."""
    core = core_of(request)
    if core.closing:
        raise draining()
    who = await console_of(request).sessions.find(request.cookies.get(COOKIE, ""))
    if who is None:
        raise ApiError(401, "signed_out", "Sign in with an admin API key.")
    request.state.grant = who.grant
    request.state.audited = request.method not in ("GET", "HEAD")
    return who


async def changing(
    request: Request, who: Annotated[ConsoleSession, Depends(signed_in)]
) -> ConsoleSession:
    """`signed_in`, for a change: from this site, with the session's CSRF token."""
    same_origin(request)
    sent = request.headers.get(CSRF_HEADER, "")
    if not sent or not secrets.compare_digest(sent.encode(), who.csrf.encode()):
        raise ApiError(403, "bad_csrf", "The page's token is missing or stale; reload it.")
    return who


Reader = Annotated[ConsoleSession, Depends(signed_in)]
Changer = Annotated[ConsoleSession, Depends(changing)]


class SignIn(BaseModel):
    """The admin API key, exchanged once for a session."""

    key: str = Field(min_length=1, max_length=200)


def _shown(who: ConsoleSession) -> dict[str, Any]:
    return {
        "csrf": who.csrf,
        "name": who.grant.name,
        "person": who.email is not None,
        "collections": list(who.grant.collections),
        "expires_at": who.expires_at.isoformat(timespec="seconds"),
    }


@router.post("/session")
async def sign_in(request: Request, response: Response, body: SignIn) -> dict[str, Any]:
    """Exchange an admin API key for a session cookie and the page's CSRF token."""
    same_origin(request)
    if core_of(request).closing:
        raise draining()
    throttled(request)
    try:
        opened = await console_of(request).sessions.open(body.key)
    except SignInRefusedError as exc:
        failed(request)
        if exc.reason == "not_admin":
            raise ApiError(403, "not_admin", "This key is not an admin key.") from exc
        raise ApiError(401, "unauthorized", "Unknown or revoked API key.") from exc
    set_session_cookie(request, response, opened.session_id)
    response.headers["Cache-Control"] = "no-store"
    return _shown(opened.session)


def set_session_cookie(request: Request, response: Response, session_id: str) -> None:
    """The session's cookie on `response`: HttpOnly, SameSite=Strict, path /admin."""
    hours = console_of(request).sessions.hours
    response.set_cookie(
        COOKIE,
        session_id,
        max_age=int(hours * 3600),
        path="/admin",
        httponly=True,
        secure=served_over_https(request),
        samesite="strict",
    )


def served_over_https(request: Request) -> bool:
    """Whether the console's cookies must be `Secure`: this request came over https, or
    PUBLIC_BASE_URL says the site is served over https (a proxy in front ends TLS)."""
    base = _limits(request).settings.public_base_url or ""
    return request.url.scheme == "https" or base.lower().startswith("https://")


@router.get("/session")
async def session(who: Reader, response: Response) -> dict[str, Any]:
    """The signed-in key and the CSRF token (a reloaded page asks; 401 when signed out)."""
    response.headers["Cache-Control"] = "no-store"
    return _shown(who)


@router.delete("/session")
async def sign_out(request: Request, response: Response, who: Changer) -> dict[str, str]:
    """Sign out: the session is deleted and the cookie cleared."""
    await console_of(request).sessions.close(request.cookies.get(COOKIE, ""), who)
    response.delete_cookie(COOKIE, path="/admin", httponly=True, samesite="strict")
    return {"result": "ok"}
