"""Telegram citations open their source: with PUBLIC_BASE_URL the answer's source title is an
`<a href>` to the signed source view, which opens with the passage marked (the API's app
over the same core); without it, a document with no URL of its own stays plain text."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from html import unescape

import httpx
import pytest

from bot.api.app import build_api
from storage.db import Database
from storage.embeddings import Embedder
from tests.support.core_fixtures import settings_for_tests
from tests.support.fake_telegram import FakeTelegram, private_text
from tests.telegram.test_telegram import (
    TelegramHarness,
    answered,
    docs,
    fake_tg,
    start_harness,
    stop_harness,
)

__all__ = ["docs", "fake_tg"]  # fixtures used here, defined with the adapter's tests

PUBLIC = "https://ragbot.example.org"


@pytest.fixture
async def linked(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> AsyncIterator[TelegramHarness]:
    """One webhook-mode worker whose links are made under PUBLIC_BASE_URL."""
    h = await start_harness(database_url, embedder, fake_tg, PUBLIC_BASE_URL=PUBLIC)
    yield h
    await stop_harness(h)


async def test_the_source_title_links_the_view_in_the_readers_script(
    linked: TelegramHarness, fake_tg: FakeTelegram, db: Database
) -> None:
    question = "住宅区停车许可证每年收费多少？"  # Simplified, of a Traditional document
    await linked.post(private_text(9100, 601, question, language="zh-hans"))
    [final] = await answered(fake_tg, 601)
    assert final["parse_mode"] == "HTML"
    # the links stay links: no preview card unfolds under the answer
    preview = final["link_preview_options"]
    assert (json.loads(preview) if isinstance(preview, str) else preview) == {"is_disabled": True}
    # the title in the reader's script, a link to the signed view on the public address
    titled = r'\[1\] <a href="(https://ragbot\.example\.org/sources/[^"]+)">停车许可证</a>'
    found = re.search(titled, final["text"])
    assert found, final["text"]
    link = unescape(found.group(1))
    app = build_api(linked.worker.core, settings_for_tests())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=PUBLIC) as web:
        page = await web.get(link)
        assert page.status_code == 200
        assert "<h1>停车许可证</h1>" in page.text
        marked = re.search(r'<mark id="cited"[^>]*>(.*?)</mark>', page.text, re.S)
        assert marked and "一千二百元" in unescape(marked.group(1))
        forged = await web.get(link.replace("sig=", "sig=x"))
        assert forged.status_code == 403


async def test_without_public_base_url_a_document_without_a_url_stays_plain(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    h = await start_harness(database_url, embedder, fake_tg)
    try:
        await h.post(private_text(9101, 602, "How much does an adult passport renewal cost?"))
        [final] = await answered(fake_tg, 602)
        assert "[1] passport" in final["text"] and "<a href" not in final["text"]
    finally:
        await stop_harness(h)
