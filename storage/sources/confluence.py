"""Reading a Confluence space (Cloud or Data Center) through atlassian-python-api.

The library is synchronous (requests): the sync calls this module's reader in a
thread. Every request goes through one session that keeps to the site's host
(redirects included), keeps a pace (SOURCE_REQUESTS_PER_SECOND) and a timeout,
and carries the login: an e-mail and API token (Cloud, basic auth) or a personal
access token (Data Center, bearer). A refused login (401/403) or a space that
cannot be listed fails the sync, which keeps every document; a 429 is waited out
when its Retry-After is short enough.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import requests

from storage.sources.web import WebLimits

LIST_LIMIT = 50  # pages asked for per listing request (Cloud may give fewer)
RETRIES_429 = 3  # times one request is retried after a 429
RETRY_AFTER_AT_MOST_S = 60.0  # a longer Retry-After fails the sync instead of stalling it
_SPACE_KEY = re.compile(r"^~?[A-Za-z0-9_-]{1,255}$")
_SPACES = "/spaces/"
NO_LOGIN = (
    "no Confluence login: set CONFLUENCE_USER and CONFLUENCE_API_TOKEN (Cloud)"
    " or CONFLUENCE_TOKEN (Data Center)"
)


class ConfluenceUnreadableError(Exception):
    """The space could not be read this time (its documents are kept)."""


class ConfluencePageError(Exception):
    """One page could not be read (its document is kept)."""


class OffSiteError(requests.RequestException):
    """A request to another host than the site's (a redirect, a next link): never sent."""


@dataclass(frozen=True)
class ConfluenceLogin:
    """The credentials from the settings (never printed: repr leaves the secrets out)."""

    user: str | None = None
    api_token: str | None = field(default=None, repr=False)
    token: str | None = field(default=None, repr=False)

    def problem(self) -> str | None:
        """Why no login can be made (None: one can)."""
        if self.user and self.api_token:
            return None
        if self.token:
            return None
        if self.user or self.api_token:
            return "CONFLUENCE_USER and CONFLUENCE_API_TOKEN go together (Cloud)"
        return NO_LOGIN

    def client_args(self) -> dict[str, str]:
        """The library's keyword arguments for this login (Cloud's when both are set)."""
        if self.user and self.api_token:
            return {"username": self.user, "password": self.api_token}
        if self.token:
            return {"token": self.token}
        raise ConfluenceUnreadableError(self.problem() or NO_LOGIN)


@dataclass(frozen=True)
class ListedPage:
    """A page of the space as listed: its version (the change stamp) and links."""

    id: str
    title: str
    version: int
    when: str | None
    key: str  # stable across renames: the page's id URL
    url: str  # where a citation sends a reader (the page's web link)

    @property
    def stamp(self) -> str:
        """The stored change stamp: a page's version number only grows."""
        return f"v{self.version}"


@dataclass(frozen=True)
class PageText:
    """A fetched page: title, Markdown text (empty: none), version stamp and edit time."""

    title: str
    text: str
    stamp: str
    when: str | None


def confluence_location(url: str, space: str | None) -> str:
    """A source's location: the site's base URL and the space key, as the space's URL.

    Raises ValueError with a sentence for the operator.
    """
    if not url.startswith(("http://", "https://")) or not urlsplit(url).hostname:
        raise ValueError("a Confluence site's URL must start with http:// or https://")
    if not space or not _SPACE_KEY.match(space):
        raise ValueError("give the space's key with --space (e.g. --space ENG)")
    return f"{url.rstrip('/')}{_SPACES}{space}"


def split_location(location: str) -> tuple[str, str]:
    """(the site's base URL, the space key) of a stored location."""
    base, _, space = location.rpartition(_SPACES)
    return base, space


class _SiteSession(requests.Session):
    """A requests session that sends to one host only, at a pace, and counts requests."""

    def __init__(self, base: str, limits: WebLimits) -> None:
        super().__init__()
        self._host = _host(base)
        self._interval = 1.0 / limits.requests_per_second
        self._max_bytes = limits.max_bytes
        self._next = 0.0
        self._lock = threading.Lock()
        self.requests = 0
        self.headers["User-Agent"] = limits.user_agent

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        """Send `request` if it is for the site's host, after the pace's wait."""
        if _host(request.url or "") != self._host:
            raise OffSiteError(f"{urlsplit(request.url or '').hostname} is not the site's host")
        with self._lock:
            now = time.monotonic()
            if self._next > now:
                time.sleep(self._next - now)  # in the sync's worker thread, not the loop
            self._next = max(now, self._next) + self._interval
            self.requests += 1
        response = super().send(request, **kwargs)
        if len(response.content) > self._max_bytes:
            raise ConfluencePageError(f"larger than {self._max_bytes} bytes")
        return response


class ConfluenceReader:
    """Lists a space's pages and fetches a page's body (blocking: call it in a thread)."""

    def __init__(self, location: str, login: ConfluenceLogin, limits: WebLimits) -> None:
        # imported when a space is read: the library and bs4 cost every command a second
        from atlassian import Confluence

        self.base, self.space = split_location(location)
        self._session = _SiteSession(self.base, limits)
        # the v1 REST API (rest/api/...) both Cloud (below /wiki) and Data Center serve;
        # cloud=True would pick the library's v2 client, whose paths and paging differ
        self._client = Confluence(
            self.base,
            cloud=False,
            timeout=max(1, round(limits.timeout_s)),
            session=self._session,
            retry_with_header=False,  # a 429 is waited out here, within a limit
            **login.client_args(),
        )

    @property
    def requests(self) -> int:
        """Requests sent so far."""
        return self._session.requests

    def close(self) -> None:
        """Let go of the connections."""
        self._session.close()

    def space_pages(self, max_pages: int) -> list[ListedPage]:
        """Every current page of the space (at most `max_pages`), with its version.

        Raises ConfluenceUnreadableError when the space or a listing page cannot be read:
        a partial list would count the pages not listed as missing.
        """
        from atlassian.errors import ApiError

        try:
            self._call(self._client.get_space, self.space)
            response = self._call(
                self._client.get_all_pages_from_space_raw,
                self.space,
                start=0,
                limit=min(LIST_LIMIT, max_pages),
                expand="version",
            )
        except ApiError as exc:  # the library's 404
            raise ConfluenceUnreadableError(
                f"{self.base}: no space {self.space!r}, or the login may not read it"
            ) from exc
        pages: list[ListedPage] = []
        while True:
            if not isinstance(response, dict):  # a login page, a proxy's error page
                raise ConfluenceUnreadableError(f"{self.base}: not Confluence's REST API")
            links = response.get("_links") or {}
            web_base = links.get("base") or self.base
            results = response.get("results") or []
            try:
                listed = [self._listed(r, web_base) for r in results]
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise ConfluenceUnreadableError(
                    f"{self.base}: an unexpected listing ({exc!r:.100})"
                ) from exc
            pages += listed[: max_pages - len(pages)]
            following = links.get("next")
            if not following or not results or len(pages) >= max_pages:
                return pages
            # a next link is relative to the site's base (its /wiki or context path)
            url = following if "://" in following else self.base + "/" + following.lstrip("/")
            response = self._call(self._client.get, url, absolute=True)

    def page(self, listed: ListedPage) -> PageText | None:
        """The page's body as text, its version now (None: gone since it was listed)."""
        from atlassian.errors import ApiError

        from storage.sources.confluence_text import storage_text

        try:
            found = self._call(
                self._client.get_page_by_id,
                listed.id,
                expand="body.storage,version",
                one_page=True,
            )
        except ApiError:  # 404: deleted or restricted since the listing
            return None
        if not isinstance(found, dict):
            raise ConfluencePageError("not a Confluence page (no JSON answer)")
        storage = ((found.get("body") or {}).get("storage") or {}).get("value") or ""
        version = found.get("version") or {}
        number = version.get("number", listed.version)
        return PageText(
            found.get("title") or listed.title,
            storage_text(storage),
            f"v{number}",
            version.get("when", listed.when),
        )

    def _listed(self, result: dict[str, Any], web_base: str) -> ListedPage:
        links = result.get("_links") or {}
        version = result.get("version") or {}
        page_id = str(result["id"])
        webui = links.get("webui")
        key = f"{self.base}/pages/viewpage.action?pageId={page_id}"
        return ListedPage(
            page_id,
            result.get("title") or page_id,
            int(version.get("number", 0)),
            version.get("when"),
            key,
            web_base.rstrip("/") + "/" + webui.lstrip("/") if webui else key,
        )

    def _call(self, method: Any, *args: Any, one_page: bool = False, **kwargs: Any) -> Any:
        """`method(...)` with a 429 waited out (up to its limit). A refused login fails
        the sync (ConfluenceUnreadableError); any other failure fails the sync too, or
        with `one_page` that page only (ConfluencePageError)."""
        for attempt in range(RETRIES_429 + 1):
            try:
                return method(*args, **kwargs)
            except requests.HTTPError as exc:
                status = exc.response.status_code if exc.response is not None else 0
                if status in (401, 403):
                    raise ConfluenceUnreadableError(
                        f"{self.base}: HTTP {status}, the Confluence login was refused"
                        " (check CONFLUENCE_USER and CONFLUENCE_API_TOKEN, or CONFLUENCE_TOKEN)"
                    ) from exc
                if status == 429:
                    wait = _retry_after(exc.response)
                    if attempt < RETRIES_429 and wait <= RETRY_AFTER_AT_MOST_S:
                        time.sleep(wait)  # in the sync's worker thread, not the loop
                        continue
                    raise ConfluenceUnreadableError(
                        f"{self.base}: rate limited (HTTP 429, Retry-After {wait:.0f} s)"
                    ) from exc
                failure: Exception = exc
            except (requests.RequestException, ConfluencePageError) as exc:  # off-site too
                failure = exc
            if one_page:
                raise ConfluencePageError(_why(failure)) from failure
            raise ConfluenceUnreadableError(f"{self.base}: {_why(failure)}") from failure
        raise AssertionError("unreachable")  # each pass returns, continues or raises


def _retry_after(response: requests.Response | None) -> float:
    """A 429's Retry-After in seconds (seconds or an HTTP date; 1 s when absent)."""
    value = (response.headers.get("Retry-After") if response is not None else None) or "1"
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return RETRY_AFTER_AT_MOST_S + 1  # unreadable: not waited for


def _host(url: str) -> str:
    """scheme://host:port of `url` (the default port spelled out)."""
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}"


def _why(exc: Exception) -> str:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    head = f"HTTP {status}" if status else type(exc).__name__
    return f"{head}: {str(exc)[:200]}" if str(exc) else head
