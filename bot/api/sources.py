"""The source view at `/sources/<document>`: a citation's document, its passage marked.

A read-only HTML page opened from a signed, expiring link (`bot.core.source_links`
mints it on each answer): the document as published now, its title in the reader's
script, the cited passage in a `<mark>` with an `id` the link's fragment scrolls to.
A changed or expired link is refused with 403, a removed document with 404, each a
page that says so in plain words. Every piece of document text is escaped; the page
runs no script and loads one style sheet (the chat page's strict policy).
"""

from __future__ import annotations

from html import escape
from importlib import resources

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from bot.core.serving import ServingCore
from bot.core.source_links import ANCHOR
from bot.core.source_view import SourceView
from textkit.catalog import say

router = APIRouter(tags=["sources"], include_in_schema=False)
STYLE = resources.files("bot.api") / "static" / "source.css"
STYLE_PATH = "/source-view.css"
_HTML_LANG = {"en": "en", "zh-hant": "zh-Hant", "zh-hans": "zh-Hans"}
_POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none';"
    " form-action 'none'; frame-ancestors 'self'"
)
_HEADERS = {
    "Content-Security-Policy": _POLICY,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-store",  # a link's capability is not for shared caches
}


def _page(language: str, title: str, body: str) -> str:
    """The page around `body` (already escaped): a phone's width, one style sheet."""
    return (
        "<!doctype html>\n"
        f'<html lang="{_HTML_LANG.get(language, "en")}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="robots" content="noindex">'
        f'<title>{escape(title)}</title><link rel="stylesheet" href="{STYLE_PATH}">'
        f'</head><body><main class="source">{body}</main></body></html>\n'
    )


def _notice(status: int, language: str, key: str) -> HTMLResponse:
    """A refusal page: a heading and one plain sentence, in the link's language."""
    heading = say(f"source:{key}_title", language)
    body = f"<h1>{escape(heading)}</h1><p>{escape(say(f'source:{key}', language))}</p>"
    return HTMLResponse(_page(language, heading, body), status_code=status, headers=_HEADERS)


def render(view: SourceView) -> str:
    """The source view's HTML: title, the note on the passage, the text in paragraphs."""
    language = view.language
    parts = [f"<h1>{escape(view.title)}</h1>"]
    if view.cited is not None:  # a link that names no passage has nothing to say of it
        note = say("source:cited" if view.cited else "source:moved", language)
        parts.append(f'<p class="note">{escape(note)}</p>')
    if view.url and view.url.startswith(("https://", "http://")):
        original = escape(say("source:original", language))
        parts.append(f'<p class="original"><a href="{escape(view.url)}">{original}</a></p>')
    parts.append('<div class="text">')
    page: int | None = None
    open_paragraph = False
    for segment in view.segments:
        if segment.page is not None and segment.page != page:
            if open_paragraph:
                parts.append("</p>")
                open_paragraph = False
            page = segment.page
            label = escape(say("source:page", language, page=page))
            parts.append(f'<p class="page">{label}</p>')
        if not (segment.joined and open_paragraph):
            if open_paragraph:
                parts.append("</p>")
            parts.append("<p>")
            open_paragraph = True
        text = escape(segment.text)
        if segment.cited:
            text = f'<mark id="{ANCHOR}" tabindex="-1">{text}</mark>'
        parts.append(text)
    if open_paragraph:
        parts.append("</p>")
    parts.append("</div>")
    return _page(language, view.title, "".join(parts))


def _digits(value: str) -> bool:
    """A number as links carry it (expiry, chunk): ASCII digits of a sane length (int()
    of thousands of digits is refused, and slow)."""
    return value.isascii() and value.isdigit() and len(value) <= 12


@router.get(STYLE_PATH)
async def style() -> Response:
    """The source view's style sheet."""
    return FileResponse(str(STYLE), media_type="text/css")


@router.get("/sources/{document:path}")
async def source(
    request: Request,
    document: str,
    lang: str = "en",
    exp: str = "",
    sig: str = "",
    c: str | None = None,
    col: str = "",
) -> Response:
    """A citation's document with its passage marked; 403 for a changed or expired link,
    404 when the document is no longer published."""
    language = lang if lang in _HTML_LANG else "en"
    chunk = int(c) if c is not None and _digits(c) else None
    if (c is not None and chunk is None) or not _digits(exp) or not sig or not col:
        return _notice(403, language, "invalid")
    core: ServingCore = request.app.state.core
    outcome, view = await core.sources.open(document, col, chunk, lang, int(exp), sig)
    if outcome in ("invalid", "expired"):
        return _notice(403, language, outcome)
    if view is None:
        return _notice(404, language, "gone")
    return HTMLResponse(render(view), headers=_HEADERS)
