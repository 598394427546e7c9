"""The staff inbox page at `/staff`: static files from this package and the page's words.

On with HANDOFF_WEB_INBOX (else 404). The page holds no secret: a staff
member types an admin API key, kept in the tab's sessionStorage only, and the
page sends it to the staff endpoints (`bot.api.staff`), which refuse other keys.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from bot.api.errors import ApiError
from bot.api.webchat import STATIC
from bot.core.serving import ServingCore
from bot.settings import Settings
from textkit.catalog import entries

router = APIRouter(tags=["staff inbox"], include_in_schema=False)
_FILES = {"staff.js": "text/javascript", "staff.css": "text/css"}
# no framing, no third-party anything: the page handles an admin key
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self';"
        " img-src 'self'; frame-ancestors 'none'; form-action 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _on(request: Request) -> Settings:
    core: ServingCore = request.app.state.core
    if not core.staff_inbox.enabled:
        raise ApiError(404, "staff_inbox_off", "The staff inbox is off (HANDOFF_WEB_INBOX).")
    settings: Settings = request.app.state.settings
    return settings


@router.get("/staff")
async def page(request: Request) -> Response:
    """The staff inbox page."""
    _on(request)
    return FileResponse(str(STATIC / "staff.html"), headers=_HEADERS)


@router.get("/staff/config.json")
async def config(request: Request) -> JSONResponse:
    """The page's words, in HANDOFF_STAFF_LANGUAGE, and the API's path."""
    language = _on(request).handoff_staff_language
    words = {
        key: texts.get(language) or texts["en"]
        for key, texts in entries().items()
        if key.startswith("staffpage:")
    }
    body = {"api": "/api/v1", "language": language, "words": words}
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@router.get("/staff/static/{name}")
async def static(request: Request, name: str) -> Response:
    """The page's script and style (a fixed list: no path from the request reaches disk)."""
    _on(request)
    if name not in _FILES:
        raise ApiError(404, "not_found", "No such file.")
    return FileResponse(str(STATIC / name), media_type=_FILES[name])
