"""The web chat at `/chat`: static files from this package and the page's settings.

The page talks to the streaming endpoint with WEB_CHAT_API_KEY, a key the
operator makes for it (`ragbot apikey create --name web --collections public`):
it is public by nature (any visitor's browser holds it), so it should read
public collections only and carry a rate limit fit for the whole website.
Without the setting the page is off.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from bot.api.errors import ApiError
from bot.core.messages import Grant
from bot.core.serving import ServingCore
from bot.settings import Settings, reveal
from textkit.catalog import entries

logger = logging.getLogger(__name__)
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


async def _checked_key(request: Request) -> str:
    """The web chat's key, if it is fit to hand to every visitor: active, not an admin
    key, reading only collections outside readers read (those screened for personal
    data: TELEGRAM_COLLECTIONS, SLACK_GUEST_COLLECTIONS, public)."""
    key = _key(request)
    core: ServingCore = request.app.state.core
    grant = await core.verify_key(key)
    problem = key_problem(grant, core.screened)
    if problem is not None:
        logger.warning("web chat refused: WEB_CHAT_API_KEY %s", problem)
        raise ApiError(503, "web_chat_misconfigured", f"WEB_CHAT_API_KEY {problem}.")
    return key


def key_problem(grant: Grant | None, public: Callable[[str], bool]) -> str | None:
    """Why a key must not be the web chat's (None: it may)."""
    if grant is None:
        return "is not an active API key (ragbot apikey list)"
    if grant.admin:
        return "is an admin key: every visitor would hold it"
    private = [c for c in grant.collections if not public(c)]
    if private:
        return f"reads {', '.join(private)}: make one for public collections only"
    return None


def _headers(request: Request) -> dict[str, str]:
    """The page may be framed by the site's own origins (API_CORS_ORIGINS), else anywhere."""
    # the sites listed may frame the chat (the embed script); none listed: this site only
    origins = " ".join(_settings(request).cors_origins())
    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self';"
        f" img-src 'self' data:; frame-ancestors 'self' {origins}"
    )
    # stripped: a header value may not end in a space (h11 drops the response)
    return {"Content-Security-Policy": policy.strip(), "Referrer-Policy": "no-referrer"}


@router.get("/chat")
async def page(request: Request) -> Response:
    """The chat page."""
    _key(request)
    return FileResponse(str(STATIC / "chat.html"), headers=_headers(request))


@router.get("/chat/config.json")
async def config(request: Request) -> JSONResponse:
    """What the page needs: its key, the API's path, whether people take over, who a refusal
    sends visitors to, its words."""
    words: dict[str, dict[str, str]] = {language: {} for language in LANGUAGES}
    for key, texts in entries().items():
        if key.startswith("webchat:"):
            for language in LANGUAGES:
                words[language][key] = texts.get(language) or texts.get("en", key)
    handoff = bool(request.app.state.core.handoff_enabled)
    key = await _checked_key(request)
    body: dict[str, Any] = {"key": key, "api": "/api/v1", "handoff": handoff}
    # who a refusal sends the visitor to (HANDOFF_CONTACT*): the page makes its links clickable
    body["contacts"] = _contacts(_settings(request))
    body["words"] = words
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


def _contacts(settings: Settings) -> dict[str, str]:
    """HANDOFF_CONTACT per page language, for the languages that have one."""
    contacts = settings.handoff_contacts()
    found = {language: contacts.get(language) or contacts.get("") for language in LANGUAGES}
    return {language: contact for language, contact in found.items() if contact}


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
