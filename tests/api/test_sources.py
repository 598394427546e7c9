"""The citations' source view: a signed link from an answer opens its document with the
cited passage marked; a changed, expired or removed one is refused in plain words.

Through the real server (`api_harness`: uvicorn on a port, the core on the test's loop)
and, for Slack, the fake Slack server: its posted answer links the view.
"""

from __future__ import annotations

import re
import time
from html import unescape
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx

from bot.core.source_links import SourceLinks
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from storage.repositories import documents as documents_repo
from tests.api.conftest import ApiHarness, api_harness
from tests.slack.test_slack import blocks_text, final_posts, mention
from tests.support.core_fixtures import settings_for_tests
from tests.support.fake_slack import FakeSlack

PUBLIC = "https://ragbot.example.org"
# a document ingested without a URL of its own: its citations link to the source view
LIBRARY = (
    "# Central library\n\nThe central library is on Harbour Road, next to the ferry pier.\n\n"
    "## Opening hours\n\nThe central library opens at 9 am and closes at 8 pm on weekdays.\n"
    "On Sundays the library is closed for cleaning.\n"
)
LIBRARY_QUESTION = "When does the central library open on weekdays?"


def _with_query(url: str, **changed: str) -> str:
    """`url` with query fields replaced (its fragment kept)."""
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    return urlunsplit(parts._replace(query=urlencode({**query, **changed})))


def _marked(page: str) -> str:
    """The text of the page's <mark id="cited">, unescaped."""
    found = re.search(r'<mark id="cited"[^>]*>(.*?)</mark>', page, re.S)
    assert found, page
    return unescape(found.group(1))


async def _ask(h: ApiHarness, question: str) -> dict:
    response = await h.client("public").post("/api/v1/ask", json={"question": question})
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_citation_opens_its_document_with_the_passage_marked_in_the_readers_script(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        body = await _ask(h, "住宅区停车许可证每年收费多少？")  # Simplified
        [cited] = body["citations"]
        # the kept fields, and the signed view's link beside the document's own page
        assert cited["document"] == "停車許可證" and cited["title"] == "停车许可证"
        assert cited["url"] == "https://city.example.org/docs/停車許可證"
        link = cited["source_url"]
        assert link.startswith("/sources/") and link.endswith("#cited")  # no PUBLIC_BASE_URL

        web = h.client(None)
        page = await web.get(link)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        html = page.text
        # the title in the Simplified reader's script, the passage marked, a phone's width
        assert "<h1>停车许可证</h1>" in html and "<title>停车许可证</title>" in html
        assert "一千二百元" in _marked(html) and cited["passage"].rstrip("…") in _marked(html)
        assert '<meta name="viewport" content="width=device-width' in html
        assert '<html lang="zh-Hans">' in html
        policy = page.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy
        assert "<script" not in html and "style=" not in html
        style = await web.get("/source-view.css")
        assert style.status_code == 200 and "mark" in style.text

        # the same document's text shown once: the overlap of its chunks not repeated
        assert html.count("設籍本市的居民") == 1 and html.count("一千二百元") == 1

        # a forged signature, another chunk, another document, another language: not valid
        forged = _with_query(link, sig="A" * 22)
        chunk = parse_qs(urlsplit(link).query)["c"][0]
        other_chunk = _with_query(link, c=str(int(chunk) + 1))
        other_language = _with_query(link, lang="zh-hant")
        other_document = link.replace(urlsplit(link).path, "/sources/passport")
        for refused in (forged, other_chunk, other_language, other_document):
            response = await web.get(refused)
            assert response.status_code == 403, refused
            # said in the link's language (the changed one's, for a changed language)
            assert any(f"<h1>{t}</h1>" in response.text for t in ("此链接无效", "此連結無效"))
            assert "Traceback" not in response.text and "一千二百元" not in response.text


async def test_an_expired_link_and_a_removed_document_are_said_plainly(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        body = await _ask(h, "How much does an adult passport renewal cost?")
        [cited] = body["citations"]
        web = h.client(None)
        assert (await web.get(cited["source_url"])).status_code == 200

        # signed with the installation's key, but 31 days ago with a 30-day lifetime
        links = SourceLinks(h.worker.db, settings_for_tests(SOURCE_LINK_DAYS=30))
        old = await links.mint(
            "passport", "public", cited["chunk"], "en", now=time.time() - 31 * 86400
        )
        expired = await web.get(old)
        assert expired.status_code == 403 and "This link has expired" in expired.text
        assert "1,300" not in expired.text
        # an expiry moved forward by hand breaks the signature
        later = _with_query(old, exp=str(int(time.time()) + 86400))
        assert (await web.get(later)).status_code == 403

        # the document replaced: the link opens the version published now, and says the
        # passage it cited is gone from it
        replaced = "# Passport renewal\n\nRenewals now cost 1,500 dollars from 1 January.\n"
        await IngestionService(h.worker.db, embedder, IngestOptions()).ingest_bytes(
            "passport.md", replaced.encode(), collection="public"
        )
        current = await web.get(cited["source_url"])
        assert current.status_code == 200 and "1,500 dollars" in current.text
        assert "1,300" not in current.text and "<mark" not in current.text
        assert "The cited passage is no longer in this document" in current.text

        # a link naming no passage (an answer remembered from before citations named
        # theirs) shows the document, and nothing about a passage
        whole = await web.get(await links.mint("passport", "public", None, "en"))
        assert whole.status_code == 200 and "1,500 dollars" in whole.text
        assert "<mark" not in whole.text and "cited passage" not in whole.text

        # document text is text: tags in it are shown, never run
        hostile = "# Notice\n\nThe notice says <script>alert(1)</script> & <b>read me</b>.\n"
        await IngestionService(h.worker.db, embedder, IngestOptions()).ingest_bytes(
            "notice.md", hostile.encode(), collection="public"
        )
        notice = (await web.get(await links.mint("notice", "public", None, "en"))).text
        assert "<script" not in notice and "<b>" not in notice
        assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;read me&lt;/b&gt;" in notice

        # a document of that title stored in an internal collection later: the public
        # link does not open it (it was signed for the public one)
        internal = "# Passport renewal\n\nINTERNAL: the counter's alarm code is 4471.\n"
        await IngestionService(h.worker.db, embedder, IngestOptions()).ingest_bytes(
            "passport.md", internal.encode(), collection="internal"
        )
        moved = await web.get(cited["source_url"])
        assert moved.status_code == 404 and "4471" not in moved.text
        # nor does a link re-signed by hand for the internal collection
        assert (await web.get(_with_query(cited["source_url"], col="internal"))).status_code == 403

        async with h.worker.db.transaction() as session:  # the document unpublished
            found = await documents_repo.find_by_title(session, "passport")
            assert found is not None
            await documents_repo.delete_document(session, found)
        gone = await web.get(cited["source_url"])
        assert gone.status_code == 404
        assert "This document is no longer available" in gone.text


async def test_a_slack_answer_links_its_source_view_under_public_base_url(
    database_url: str, embedder: Embedder
) -> None:
    fake = FakeSlack().start()
    try:
        async with api_harness(database_url, embedder, slack=fake, PUBLIC_BASE_URL=PUBLIC) as h:
            await IngestionService(h.worker.db, embedder, IngestOptions()).ingest_bytes(
                "library.md", LIBRARY.encode(), collection="public"
            )
            assert h.slack is not None
            await h.slack.event(mention(LIBRARY_QUESTION, "300.1"))
            [final] = await final_posts(fake, db=h.worker.db)
            shown = blocks_text(final)
            assert "9 am" in shown
            # the source's title is a Slack link to the signed view on the public address
            found = re.search(r"<(https://ragbot\.example\.org/sources/[^|>]+)\|library>", shown)
            assert found, shown
            link = found.group(1).replace("&amp;", "&")
            async with httpx.AsyncClient() as web:  # the same path on the real server
                page = await web.get(h.url + link.removeprefix(PUBLIC))
            assert page.status_code == 200
            assert "9 am" in _marked(page.text) and "<h1>library</h1>" in page.text
    finally:
        fake.stop()
