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
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from bot.api.errors import ApiError
from bot.core.messages import Audience, Grant
from bot.core.serving import ServingCore
from bot.settings import API_PLATFORM, Settings, reveal
from textkit.catalog import entries

logger = logging.getLogger(__name__)
router = APIRouter(tags=["web chat"], include_in_schema=False)
STATIC = resources.files("bot.api") / "static"
LANGUAGES = ("en", "zh-hant", "zh-hans")
_FILES = {"chat.js": "text/javascript", "chat.css": "text/css"}
# host pages already warned about (bounded: a script sending made-up origins cannot grow it)
_WARNED: set[str] = set()
WARNED_MAX = 1000


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _key(request: Request) -> str:
    key = reveal(_settings(request).web_chat_api_key)
    if not key:
        raise ApiError(404, "web_chat_off", "The web chat is off (set WEB_CHAT_API_KEY).")
    return key


async def _checked_key(request: Request) -> tuple[str, Grant]:
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
    assert grant is not None  # key_problem said so
    return key, grant


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
    settings = _settings(request)
    origins = " ".join(settings.cors_origins())
    logo = _origin(settings.web_chat_logo_url) or ""  # the operator's logo may be elsewhere
    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self';"
        f" img-src 'self' data: {logo}; frame-ancestors 'self' {origins}"
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
    sends visitors to, its words, what it may send as a question besides text."""
    words: dict[str, dict[str, str]] = {language: {} for language in LANGUAGES}
    for key, texts in entries().items():
        if key.startswith("webchat:"):
            for language in LANGUAGES:
                words[language][key] = texts.get(language) or texts.get("en", key)
    core: ServingCore = request.app.state.core
    handoff = bool(core.handoff_enabled)
    key, grant = await _checked_key(request)
    body: dict[str, Any] = {"key": key, "api": "/api/v1", "handoff": handoff}
    # who a refusal sends the visitor to (HANDOFF_CONTACT*): the page makes its links clickable
    body["contacts"] = _contacts(_settings(request))
    body["words"] = words
    # the same suggestions as Slack's and Telegram's greetings, for what this key reads
    audience = Audience(guest=False, verified=True, grant=grant)
    body["suggestions"] = {
        language: await core.suggested_questions(API_PLATFORM, audience, language)
        for language in LANGUAGES
    }
    body["theme"] = theme(_settings(request))
    body["media"] = media(_settings(request), core.upload_limit)
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


def theme(settings: Settings) -> dict[str, str]:
    """The page's look as the operator set it (WEB_CHAT_TITLE, _COLOR, _LOGO_URL,
    _GREETING): only what is set, each checked by Settings."""
    shown = {
        "title": settings.web_chat_title.strip(),
        "color": settings.web_chat_color,
        "logo": settings.web_chat_logo_url,
        "greeting": settings.web_chat_greeting.strip(),
    }
    return {name: value for name, value in shown.items() if value}


def media(settings: Settings, photo_limit: int) -> dict[str, Any]:
    """What the page may send as a question (`/api/v1/ask/media`): a photo always, a
    recording only with a transcription endpoint (STT_BASE_URL); their limits, so the page
    stops a recording in time and refuses a file too large before sending it."""
    return {
        "photo": True,
        "voice": bool(settings.stt_base_url),
        "photo_max_bytes": photo_limit,
        "voice_max_bytes": settings.stt_max_bytes,
        "voice_max_seconds": settings.stt_max_seconds,
    }


def _origin(url: str | None) -> str | None:
    """scheme://host[:port] of an http(s) URL (None: not one)."""
    if not url:
        return None
    parsed = urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return None
    return f"{parsed.scheme}://{parsed.netloc}".lower()


def embedding_allowed(settings: Settings, origin: str, own_host: str) -> bool:
    """True when a page at `origin` may frame the chat: this site, or one API_CORS_ORIGINS
    lists (`*`: any)."""
    allowed = [o.rstrip("/").lower() for o in settings.cors_origins()]
    return "*" in allowed or origin in allowed or urlsplit(origin).netloc == own_host.lower()


@router.get("/chat/embed-check")
async def embed_check(request: Request) -> JSONResponse:
    """Whether the page calling (its Origin) may embed the chat: embed.js asks, and warns on
    the host page when not. Not allowed: one WARNING per origin naming API_CORS_ORIGINS,
    as the operator otherwise sees only a broken frame on their site."""
    _key(request)
    origin = _origin(request.headers.get("origin"))
    own_host = request.headers.get("host", "")
    allowed = origin is None or embedding_allowed(_settings(request), origin, own_host)
    if not allowed and origin not in _WARNED and len(_WARNED) < WARNED_MAX:
        _WARNED.add(str(origin))
        logger.warning(
            "web chat embedded on %s, which API_CORS_ORIGINS does not list: the browser"
            " refuses the chat's frame there; add the origin to API_CORS_ORIGINS",
            origin,
        )
    # any site may ask (the answer tells nothing secret): so the page can read it
    headers = {"Access-Control-Allow-Origin": "*", "Cache-Control": "no-store"}
    return JSONResponse({"allowed": allowed}, headers=headers)


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
