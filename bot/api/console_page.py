"""The admin console page at `/admin`: static files from this package and its words.

The page holds no secret it could leak: it signs in once with an admin API key
(bot.api.console_auth) or through the organisation's identity provider
(bot.api.console_oidc) and keeps only the CSRF token in memory. It is never
framed (`frame-ancestors 'none'`, `X-Frame-Options: DENY`), loads nothing from
elsewhere, and runs no inline script or style.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from bot.api.auth import core_of
from bot.api.errors import ApiError
from bot.api.webchat import STATIC
from textkit.catalog import LANGUAGES, entries

router = APIRouter(include_in_schema=False)
_FILES = {"console.js": "text/javascript", "console.css": "text/css"}
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self';"
        " img-src 'self'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@router.get("/admin")
async def page() -> Response:
    """The console page."""
    return FileResponse(str(STATIC / "console.html"), headers=HEADERS)


@router.get("/admin/config.json")
async def config(request: Request) -> JSONResponse:
    """The page's words in every language (the picker switches without a reload), and the
    identity provider's name for its sign-in button (null: no such sign-in)."""
    words: dict[str, dict[str, str]] = {language: {} for language in LANGUAGES}
    for key, texts in entries().items():
        if key.startswith("admin:"):
            for language in LANGUAGES:
                words[language][key.removeprefix("admin:")] = texts.get(language) or texts["en"]
    oidc = core_of(request).admin_console.oidc
    body = {"languages": list(LANGUAGES), "words": words, "oidc": oidc.name if oidc else None}
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@router.get("/admin/static/{name}")
async def static(name: str) -> Response:
    """The page's script and style (a fixed list: no path from the request reaches disk)."""
    if name not in _FILES:
        raise ApiError(404, "not_found", "No such file.")
    return FileResponse(str(STATIC / name), media_type=_FILES[name], headers=HEADERS)
