"""Reading a website: robots.txt, its sitemaps or a bounded crawl, polite conditional GETs.

Every request goes through one per-host pace (SOURCE_REQUESTS_PER_SECOND, or the
site's robots.txt Crawl-delay when slower). A page the source already holds is
asked for with its ETag / Last-Modified: a 304 costs no body and no ingestion.
"""

from __future__ import annotations

import asyncio
import time
import urllib.robotparser
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx
from lxml import etree

from storage.sources.pages import PageText, in_scope, page_links, read_page

FETCHED, NOT_MODIFIED, GONE, FAILED = "fetched", "not_modified", "gone", "failed"
SITEMAPS_AT_MOST = 50  # sitemap files read per sync (an index of indexes stops here)
IN_FLIGHT = 8  # requests open at once (the pace decides how fast they start)


class SiteUnreadableError(Exception):
    """The site as a whole could not be read this time (its documents are kept)."""


@dataclass(frozen=True)
class WebLimits:
    """How a site is read: pace, timeout, largest page, and the name we give."""

    requests_per_second: float = 2.0
    timeout_s: float = 20.0
    max_bytes: int = 5 * 1024 * 1024
    user_agent: str = "ragbot"


@dataclass(frozen=True)
class Known:
    """What the store holds of a page: validators for a conditional GET, and its links."""

    etag: str | None = None
    last_modified: str | None = None
    links: tuple[str, ...] = ()


@dataclass(frozen=True)
class Page:
    """The outcome of one page's request."""

    url: str
    status: str  # FETCHED, NOT_MODIFIED, GONE or FAILED
    page: PageText | None = None
    etag: str | None = None
    last_modified: str | None = None
    reason: str | None = None


@dataclass
class _Pace:
    """One request start per `interval` seconds (this process, one host)."""

    interval: float
    _next: float = 0.0
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def wait(self) -> None:
        async with self._lock:
            now = time.monotonic()
            if self._next > now:
                await asyncio.sleep(self._next - now)  # the pace itself, not a test's wait
            self._next = max(now, self._next) + self.interval


class WebReader:
    """Reads one site's pages in scope; hands each to `on_page` as it arrives."""

    def __init__(self, client: httpx.AsyncClient, limits: WebLimits) -> None:
        self._client = client
        self._limits = limits
        self._pace = _Pace(1.0 / limits.requests_per_second)
        self._robots = urllib.robotparser.RobotFileParser()
        self.requests = 0

    async def read(
        self,
        start: str,
        depth: int,
        max_pages: int,
        known: Mapping[str, Known],
        on_page: Callable[[Page], Awaitable[None]],
    ) -> set[str]:
        """Read the site from `start`; every URL asked for (in scope, allowed by robots.txt).

        Raises SiteUnreadableError when robots.txt or the start page cannot be read.
        """
        await self._read_robots(start)
        if not self._allowed(start):
            # the whole site shut to us (robots.txt 401/403, or Disallow over the start):
            # a failed sync that keeps every page, not two syncs that delete them all
            raise SiteUnreadableError(
                f"{start}: robots.txt does not let {self._limits.user_agent} read it"
            )
        urls = await self._sitemap_urls(start, max_pages)
        if urls:
            allowed = [u for u in urls if self._allowed(u)]
            await self._fetch_all(allowed, known, on_page, want_links=False)
            return set(allowed)
        return await self._crawl(start, depth, max_pages, known, on_page)

    async def _read_robots(self, start: str) -> None:
        robots_url = _root(start) + "/robots.txt"
        try:
            response = await self._get(robots_url)
        except httpx.HTTPError as exc:
            raise SiteUnreadableError(f"{robots_url}: {_why(exc)}") from exc
        if response.status_code >= 500:
            raise SiteUnreadableError(f"{robots_url}: HTTP {response.status_code}")
        if response.status_code in (401, 403):  # as urllib.robotparser reads them
            self._robots.parse(["User-agent: *", "Disallow: /"])
        elif response.status_code >= 400:
            self._robots.parse([])  # no robots.txt: every path may be read
        else:
            self._robots.parse(response.text.splitlines())
        self._robots.modified()  # marks it read (can_fetch refuses everything before)
        delay = self._robots.crawl_delay(self._limits.user_agent)
        if delay:
            self._pace.interval = max(self._pace.interval, float(delay))

    def _allowed(self, url: str) -> bool:
        return self._robots.can_fetch(self._limits.user_agent, url)

    async def _sitemap_urls(self, start: str, max_pages: int) -> list[str]:
        """The pages in scope the site's sitemaps list ([]: no sitemap, crawl instead)."""
        queue = list(self._robots.site_maps() or [_root(start) + "/sitemap.xml"])
        seen: set[str] = set()
        pages: dict[str, None] = {}
        while queue and len(seen) < SITEMAPS_AT_MOST and len(pages) < max_pages:
            sitemap = queue.pop(0)
            if sitemap in seen:
                continue
            seen.add(sitemap)
            try:
                response = await self._get(sitemap)
            except httpx.HTTPError:
                continue  # a sitemap that cannot be read: the others (or a crawl) still can
            if response.status_code != 200:
                continue
            kind, locations = _sitemap_entries(response.content)
            if kind == "sitemapindex":
                queue.extend(locations)
                continue
            for url in locations:
                if in_scope(url, start) and len(pages) < max_pages:
                    pages[url] = None
        return list(pages)

    async def _crawl(
        self,
        start: str,
        depth: int,
        max_pages: int,
        known: Mapping[str, Known],
        on_page: Callable[[Page], Awaitable[None]],
    ) -> set[str]:
        """Breadth first from `start`, `depth` links deep, at most `max_pages` pages."""
        asked: set[str] = set()
        level = [start] if self._allowed(start) else []
        links: dict[str, list[str]] = {}

        async def collect(page: Page) -> None:
            if page.page is not None:
                links[page.url] = page.page.links
            elif page.status in (NOT_MODIFIED, FAILED):  # no body: the links it had last time
                links[page.url] = list(known.get(page.url, Known()).links)
            await on_page(page)

        for hop in range(depth + 1):
            level = [u for u in dict.fromkeys(level) if u not in asked][: max_pages - len(asked)]
            if not level:
                break
            asked.update(level)
            await self._fetch_all(level, known, collect, want_links=True)
            if hop == 0 and not any(u in links for u in level):
                raise SiteUnreadableError(f"{start}: the start page could not be read")
            level = [
                link
                for url in level
                for link in links.get(url, [])
                if in_scope(link, start) and link not in asked and self._allowed(link)
            ]
        return asked

    async def _fetch_all(
        self,
        urls: list[str],
        known: Mapping[str, Known],
        on_page: Callable[[Page], Awaitable[None]],
        want_links: bool,
    ) -> None:
        room = asyncio.Semaphore(IN_FLIGHT)

        async def one(url: str) -> None:
            async with room:
                page = await self._fetch(url, known.get(url), want_links)
            await on_page(page)

        await asyncio.gather(*(one(u) for u in urls))

    async def _fetch(self, url: str, known: Known | None, want_links: bool) -> Page:
        headers: dict[str, str] = {}
        if known is not None and known.etag:
            headers["If-None-Match"] = known.etag
        if known is not None and known.last_modified:
            headers["If-Modified-Since"] = known.last_modified
        try:
            status, body, response_headers, kind = await self._get_page(url, headers)
        except httpx.HTTPError as exc:
            return Page(url, FAILED, reason=_why(exc))
        except _TooLargeError:
            return Page(url, FAILED, reason=f"larger than {self._limits.max_bytes} bytes")
        if status == 304:
            return Page(url, NOT_MODIFIED)
        if status in (404, 410):
            return Page(url, GONE, reason=f"HTTP {status}")
        if status != 200:
            return Page(url, FAILED, reason=f"HTTP {status}")
        if "html" not in kind:
            return Page(url, FAILED, reason=f"not an HTML page ({kind or 'no Content-Type'})")
        try:
            html = body.decode(_charset(kind), errors="replace")
        except LookupError:  # a charset Python does not know
            html = body.decode("utf-8", errors="replace")
        text = await asyncio.to_thread(read_page, html, url, want_links)
        etag, modified = response_headers.get("etag"), response_headers.get("last-modified")
        if text.text is None:
            page = PageText(None, text.title, text.links)
            return Page(url, FAILED, page, reason="no main text found on the page")
        return Page(url, FETCHED, text, etag, modified)

    async def _get_page(
        self, url: str, headers: dict[str, str]
    ) -> tuple[int, bytes, httpx.Headers, str]:
        """Status, body (at most max_bytes), headers and Content-Type of a GET."""
        await self._pace.wait()
        self.requests += 1
        async with self._client.stream("GET", url, headers=headers) as response:
            kind = response.headers.get("content-type", "").lower()
            if response.status_code != 200:
                return response.status_code, b"", response.headers, kind
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self._limits.max_bytes:
                raise _TooLargeError
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self._limits.max_bytes:
                    raise _TooLargeError
                chunks.append(chunk)
            return 200, b"".join(chunks), response.headers, kind

    async def _get(self, url: str) -> httpx.Response:
        """A GET of robots.txt or a sitemap, its body (as decoded: a gzip bomb is cut off
        too) at most the page size limit."""
        await self._pace.wait()
        self.requests += 1
        async with self._client.stream("GET", url) as response:
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self._limits.max_bytes:
                    raise httpx.DecodingError(
                        f"{url}: over the size limit", request=response.request
                    )
                chunks.append(chunk)
            return httpx.Response(
                response.status_code,
                headers={"content-type": response.headers.get("content-type", "")},
                content=b"".join(chunks),
                request=response.request,
            )


class _TooLargeError(Exception):
    """A page over the size limit (its download is cut off)."""


class OffSiteError(httpx.RequestError):
    """A request to another host than the source's (a redirect, a sitemap's entry): never
    sent, so a site cannot have the sync read an internal address and publish it."""


def client(limits: WebLimits, start: str) -> httpx.AsyncClient:
    """The HTTP client a sync reads `start`'s site with: timeout, our name, redirects
    followed on that host only (each request's host checked before it is sent)."""
    host = _host(start)

    async def same_host(request: httpx.Request) -> None:
        if _host(str(request.url)) != host:
            raise OffSiteError(f"{request.url.host} is not the source's host", request=request)

    return httpx.AsyncClient(
        timeout=limits.timeout_s,
        follow_redirects=True,
        headers={"User-Agent": limits.user_agent},
        limits=httpx.Limits(max_connections=IN_FLIGHT),
        event_hooks={"request": [same_host]},
    )


def _host(url: str) -> str:
    """scheme://host:port of `url`, as requests compare (the default port spelled out)."""
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}"


def _root(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _why(exc: httpx.HTTPError) -> str:
    return f"{type(exc).__name__}: {exc}"[:200] if str(exc) else type(exc).__name__


def _charset(content_type: str) -> str:
    for part in content_type.split(";"):
        key, _, value = part.strip().partition("=")
        if key == "charset" and value:
            return value.strip("\"'")
    return "utf-8"


def _sitemap_entries(data: bytes) -> tuple[str, list[str]]:
    """("urlset" or "sitemapindex", the <loc> URLs) of a sitemap; ("", []) if unreadable."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        return "", []
    kind = etree.QName(root).localname
    locations = [
        (loc.text or "").strip()
        for loc in root.iter("{*}loc")
        if (loc.text or "").strip().startswith(("http://", "https://"))
    ]
    return kind, locations


__all__ = ["WebLimits", "WebReader", "client", "page_links"]
