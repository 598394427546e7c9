"""Suggested questions from the answer memory: asked by several people, on the reader's
platform, readable by the reader; configured questions win."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.core.messages import FinalAnswer
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.support.core_fixtures import (
    DOCS,
    Worker,
    close_worker,
    collect,
    make_worker,
    message,
    only,
    settings_for_tests,
)

QUESTION = "How much does a passport renewal cost?"


@pytest.fixture
async def worker(db: Database, database_url: str, embedder: Embedder) -> AsyncIterator[Worker]:
    """A worker with the answer memory on and the sample documents in `public`."""
    one = await make_worker(database_url, embedder, settings_for_tests(), memory=True)
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode(), collection="public")
    yield one
    await close_worker(one)


async def ask(worker: Worker, user: str, n: int) -> FinalAnswer:
    events = await collect(
        worker.core.handle(message(QUESTION, platform="telegram", user=user, conv=f"c-{n}"))
    )
    [answer] = only(events, FinalAnswer)
    return answer


async def test_a_question_three_people_asked_is_suggested_one_person_repeating_is_not(
    worker: Worker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.core.answering.suggestions.CACHE_S", 0.0)  # each look is a fresh one
    core = worker.core
    for n in range(3):  # one person asking three times: remembered, but one asker
        await ask(worker, "700", n)
    assert await core.suggested_questions("telegram", None, "en") == []
    for n, user in enumerate(("701", "702"), start=3):
        answer = await ask(worker, user, n)
        assert answer.result.outcome == "memory"  # served from the memory: an asker more
    assert await core.suggested_questions("telegram", None, "en") == [QUESTION]
    # only in its language, only on the platform it was asked on
    assert await core.suggested_questions("telegram", None, "zh-hant") == []
    assert await core.suggested_questions("slack", None, "en") == []


async def test_configured_questions_win(
    db: Database, database_url: str, embedder: Embedder
) -> None:
    settings = settings_for_tests(
        SUGGESTED_QUESTIONS_EN=" Where is the town hall? | |Opening hours?"
    )
    one = await make_worker(database_url, embedder, settings, memory=True)
    try:
        found = await one.core.suggested_questions("telegram", None, "en")
        assert found == ["Where is the town hall?", "Opening hours?"]
        assert await one.core.suggested_questions("telegram", None, "zh-hans") == []
    finally:
        await close_worker(one)
