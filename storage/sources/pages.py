"""One web page's main text, title and links (trafilatura, lxml): CPU work, run in a thread."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.html
import trafilatura

# links a crawl never follows: files, not pages (a folder source reads those)
_NOT_PAGES = (
    ".pdf", ".doc", ".docx", ".zip", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".css",
    ".js", ".xml", ".ico", ".mp4", ".mp3", ".webp",
)  # fmt: skip


@dataclass(frozen=True)
class PageText:
    """A page's main text as Markdown (None: none found), its title, and the pages it links."""

    text: str | None
    title: str | None
    links: list[str]


def read_page(html: str, url: str, want_links: bool) -> PageText:
    """The main text without navigation, headers and footers; links only when crawling."""
    # precision first: on a short page the default falls back to the whole body, menus
    # included; a page where precision finds nothing gets the default's recall
    text = _extract(html, url, precise=True) or _extract(html, url, precise=False)
    meta = trafilatura.extract_metadata(html, default_url=url)
    title = (meta.title if meta is not None else None) or None
    return PageText(
        text.strip() if text else None, title, page_links(html, url) if want_links else []
    )


def _extract(html: str, url: str, *, precise: bool) -> str | None:
    return trafilatura.extract(
        html,
        url=url,
        output_format="markdown",
        include_comments=False,
        include_tables=True,
        favor_precision=precise,
    )


def page_links(html: str, url: str) -> list[str]:
    """The http(s) pages `html` links to, absolute, without fragments, in page order."""
    try:
        tree = lxml.html.fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return []
    found: dict[str, None] = {}
    for anchor in tree.iterfind(".//a[@href]"):
        link = urldefrag(urljoin(url, anchor.get("href", "").strip())).url
        parts = urlsplit(link)
        if parts.scheme in ("http", "https") and not parts.path.lower().endswith(_NOT_PAGES):
            found[link] = None
    return list(found)


def in_scope(url: str, start: str) -> bool:
    """Whether `url` is on the start URL's host and under its path (its folder)."""
    a, b = urlsplit(url), urlsplit(start)
    prefix = b.path if b.path.endswith("/") else b.path.rsplit("/", 1)[0] + "/"
    return (a.scheme, a.netloc) == (b.scheme, b.netloc) and (a.path or "/").startswith(prefix)
