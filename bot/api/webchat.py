"""The web chat at `/chat`: static files from this package and the page's settings.

The page talks to the streaming endpoint with WEB_CHAT_API_KEY, a key the
operator makes for it (`ragbot apikey create --name web --collections public`):
it is public by nature (any visitor's browser holds it), so it should read
public collections only and carry a rate limit fit for the whole website.
Without the setting the page is off.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from bot.api.errors import ApiError
from bot.settings import Settings, reveal
from textkit.catalog import entries

router = APIRouter(tags=["web chat"], include_in_schema=False)
STATIC = resources.files("bot.api") / "static"
LANGUAGES = ("en", "zh-hant", "zh-hans")
_FILES = {"chat.js": "text/javascript", "chat.css": "text/css"}


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _key(request: Request) -> str:
    key = reveal(_settings(request).web_chat_api_key)
    if not key:
        raise ApiError(404, "web_chat_off", "The web chat is off (set WEB_CHAT_API_KEY).")
    return key


def _headers(request: Request) -> dict[str, str]:
    """The page may be framed by the site's own origins (API_CORS_ORIGINS), else anywhere."""
    origins = " ".join(o for o in _settings(request).cors_origins() if o != "*") or "*"
    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self';"
        f" img-src 'self' data:; frame-ancestors 'self' {origins}"
    )
    return {"Content-Security-Policy": policy, "Referrer-Policy": "no-referrer"}


@router.get("/chat")
async def page(request: Request) -> Response:
    """The chat page."""
    _key(request)
    return FileResponse(str(STATIC / "chat.html"), headers=_headers(request))


@router.get("/chat/config.json")
async def config(request: Request) -> JSONResponse:
    """What the page needs: its key, the API's path, whether people take over, its words."""
    words: dict[str, dict[str, str]] = {language: {} for language in LANGUAGES}
    for key, texts in entries().items():
        if key.startswith("webchat:"):
            for language in LANGUAGES:
                words[language][key] = texts.get(language) or texts.get("en", key)
    handoff = bool(request.app.state.core.handoff.enabled)
    body: dict[str, Any] = {"key": _key(request), "api": "/api/v1", "handoff": handoff}
    body["words"] = words
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@router.get("/chat/static/{name}")
async def static(request: Request, name: str) -> Response:
    """The page's script and style (a fixed list: no path from the request reaches disk)."""
    _key(request)
    if name not in _FILES:
        raise ApiError(404, "not_found", "No such file.")
    return FileResponse(str(STATIC / name), media_type=_FILES[name])


@router.get("/chat/embed.js")
async def embed(request: Request) -> Response:
    """One script tag puts the chat on any page: a button that opens it in a frame."""
    _key(request)
    return FileResponse(str(STATIC / "embed.js"), media_type="text/javascript")
