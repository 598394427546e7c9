"""A Hong Kong resident's colloquial Cantonese question finds the written-Chinese document
that answers it: searched as written Chinese, answered and stored as it was written."""

from __future__ import annotations

import pytest
from sqlalchemy import text

import storage.search
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.api.conftest import api_harness

LIBRARY = "# 圖書證\n\n沒有圖書證的市民可以在任何公共圖書館申請，申請是免費的。\n"
QUESTION = "冇證喺邊度申請？"  # "No card: where do I apply?"


async def test_a_cantonese_question_finds_and_cites_the_written_chinese_document(
    database_url: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with api_harness(database_url, embedder) as h:
        ingestion = IngestionService(h.worker.db, embedder, IngestOptions())
        await ingestion.ingest_bytes("圖書證.md", LIBRARY.encode(), collection="public")
        client = h.client("public")
        answered = (await client.post("/api/v1/ask", json={"question": QUESTION})).json()
        async with h.worker.db.sessions() as session:
            kept = await session.scalar(
                text("SELECT content FROM messages WHERE role = 'user' ORDER BY id LIMIT 1")
            )
        # searched as written (冇, 喺, 邊度 unknown to the index), the document is missed
        monkeypatch.setattr(storage.search, "written_chinese", lambda words: words)
        before = (await client.post("/api/v1/ask", json={"question": QUESTION})).json()
    assert answered["outcome"] == "answered", answered
    assert [c["document"] for c in answered["citations"]] == ["圖書證"]
    assert "公共圖書館" in answered["answer"] and answered["language"] == "zh-hant"
    assert answered["query"]["original"] == QUESTION and kept == QUESTION  # as written
    assert before["outcome"] == "refused" and not before["citations"]
