"""Fixtures shared by the graph's tests: a fake OpenAI-compatible model server, and the
answer service with it over one document."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.turn.service import AnswerService
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.fake_openai import FakeOpenAI
from tests.support.model_answers import OverDocument, answering_over


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A fake OpenAI-compatible server on a local port (its `script` says what it
    replies); stopped after the test."""
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def over_document(
    db: Database,
    searcher: HybridSearcher,
    ingestion: IngestionService,
    embedder: Embedder,
    fake: FakeOpenAI,
) -> OverDocument:
    """`over_document(name, text)`: the answer service with the fake model over that
    document, ingested (tests.support.model_answers.answering_over)."""

    async def over(name: str, document: str) -> AnswerService:
        return await answering_over(db, searcher, ingestion, embedder, fake, name, document)

    return over
