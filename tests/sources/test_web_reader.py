"""Reading a website: scope, robots.txt, sitemaps, conditional requests, size limit."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from storage.sources import web
from storage.sources.web import Known, Page, SiteUnreadableError, WebLimits, WebReader
from tests.support.local_site import LocalSite

LIMITS = WebLimits(requests_per_second=1000, timeout_s=5, max_bytes=4000)
TEXT = "The library lends twenty books at a time for three weeks to every card holder."


@pytest.fixture
async def site() -> AsyncIterator[LocalSite]:
    served = LocalSite()
    served.page("/lib/books.html", "Books", TEXT)
    served.page("/lib/big.html", "Big", "word " * 2000)
    served.page("/other/x.html", "Elsewhere", TEXT)
    served.page("/private/p.html", "Private", TEXT)
    served.start()
    yield served
    served.stop()


async def _read(
    site: LocalSite, start: str, known: dict[str, Known] | None = None
) -> tuple[set[str], dict[str, Page]]:
    pages: dict[str, Page] = {}

    async def keep(page: Page) -> None:
        pages[page.url.removeprefix(site.root)] = page

    async with web.client(LIMITS, start) as http:
        asked = await WebReader(http, LIMITS).read(start, 2, 100, known or {}, keep)
    return {u.removeprefix(site.root) for u in asked}, pages


async def test_the_sitemap_within_scope_and_size(site: LocalSite) -> None:
    asked, pages = await _read(site, site.root + "/lib/")
    # the sitemap lists all four: only those under /lib/ are read
    assert asked == {"/lib/books.html", "/lib/big.html"}
    books = pages["/lib/books.html"]
    assert books.status == web.FETCHED and books.page is not None
    assert books.page.title == "Books" and TEXT in (books.page.text or "")
    assert "footer" not in (books.page.text or "") and "Site menu" not in (books.page.text or "")
    assert pages["/lib/big.html"].status == web.FAILED
    assert pages["/lib/big.html"].reason == "larger than 4000 bytes"


async def test_robots_txt_is_obeyed_and_etags_asked(site: LocalSite) -> None:
    asked, pages = await _read(site, site.root + "/")
    assert "/private/p.html" not in asked and not site.asked("/private/p.html")
    etag = pages["/other/x.html"].etag
    assert etag
    site.clear_log()
    url = site.root + "/other/x.html"
    _, again = await _read(site, site.root + "/other/", {url: Known(etag=etag)})
    assert again["/other/x.html"].status == web.NOT_MODIFIED
    assert site.statuses() == {304: 1}


async def test_a_site_that_cannot_be_read_raises(site: LocalSite) -> None:
    root = site.root
    site.stop()
    with pytest.raises(SiteUnreadableError):
        await _read(site, root + "/")


async def test_a_redirect_or_sitemap_to_another_host_is_never_followed(site: LocalSite) -> None:
    """A page of the site sending the sync to another address (an internal one, say) is a
    failed page: the other host is never asked, nothing of it is read."""
    inside = LocalSite(sitemap=False)
    inside.page("/secret.html", "Internal", "The root password is hunter2 on every server.")
    inside.start()
    try:
        site.page("/lib/moved.html", "Moved", TEXT)
        site.redirects["/lib/moved.html"] = inside.root + "/secret.html"
        site.redirects["/lib/here.html"] = site.root + "/lib/books.html"  # same host: followed
        site.page("/lib/here.html", "Here", TEXT)
        _asked, pages = await _read(site, site.root + "/lib/")
        assert not inside.asked("/secret.html")
        moved = pages["/lib/moved.html"]
        assert moved.status == web.FAILED and "not the source's host" in (moved.reason or "")
        assert pages["/lib/here.html"].status == web.FETCHED
    finally:
        inside.stop()


async def test_a_site_shut_by_robots_txt_fails_instead_of_reading_nothing() -> None:
    """Disallow over the source's URL: the sync fails (its documents are kept), rather
    than finding every page gone and deleting them two syncs later."""
    shut = LocalSite(disallow="/")
    shut.page("/lib/books.html", "Books", TEXT)
    shut.start()
    try:
        with pytest.raises(SiteUnreadableError, match=r"robots\.txt does not let"):
            await _read(shut, shut.root + "/lib/")
        assert not shut.asked("/lib/books.html")
    finally:
        shut.stop()
