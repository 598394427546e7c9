"""LLM_TIMEOUT and LLM_MAX_RETRIES with the real langchain-openai client and a local fake server."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest

from bot.service import AnswerService
from graph.context import GraphContext
from graph.events import Reset, TurnEvent
from graph.models import build_chat_model
from storage.db import Database
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.fake_openai import FakeOpenAI, Reply

PASSPORT = "# Passport renewal\n\nAn adult passport renewal costs 1,300 dollars.\n"
PLAN = Reply(
    json.dumps(
        {"task_type": "simple_faq", "should_retrieve": True, "query": "passport renewal fee"}
    )
)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


async def _service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, url: str, retries: int
) -> AnswerService:
    await ingestion.ingest_bytes("passport.md", PASSPORT.encode())
    llm = build_chat_model(url, "k", "fake", timeout=1.0)
    context = GraphContext(searcher=searcher, llm=llm, llm_timeout=1.0, llm_retries=retries)
    return AnswerService(db, context)


async def _run(service: AnswerService, question: str) -> tuple[list[TurnEvent], object]:
    events = [e async for e in service.stream(question)]
    return events, events[-1].result  # type: ignore[union-attr]


async def test_a_timeout_is_retried_and_every_request_counts(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI
) -> None:
    service = await _service(db, ingestion, searcher, fake.url, retries=1)
    # the first answer request says nothing for longer than LLM_TIMEOUT; the retry answers
    fake.script = [PLAN, Reply("It costs 1,300 dollars [1].", delay=1.6), Reply("1,300 [1].")]
    _, result = await _run(service, "passport renewal fee?")
    assert result.decision_path[-2] == "response_synth:llm"  # type: ignore[attr-defined]
    assert result.answer == "1,300 [1]."  # type: ignore[attr-defined]
    assert result.llm_calls == 3  # type: ignore[attr-defined]
    assert len(fake.requests) == 3


async def test_a_slow_stream_is_not_cut_off_once_text_is_shown(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI
) -> None:
    service = await _service(db, ingestion, searcher, fake.url, retries=0)
    long_answer = "An adult passport renewal costs 1,300 dollars [1]. " * 3
    # about 2 s in all, with LLM_TIMEOUT 1 s: the first token comes at once
    fake.script = [PLAN, Reply(long_answer, pace=0.1)]
    events, result = await _run(service, "passport renewal fee?")
    assert result.answer == long_answer.strip()  # type: ignore[attr-defined]
    assert not any(isinstance(e, Reset) for e in events)


async def test_a_cut_off_stream_is_discarded_and_cleared(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI, caplog
) -> None:  # type: ignore[no-untyped-def]
    service = await _service(db, ingestion, searcher, fake.url, retries=1)
    fake.script = [
        PLAN,
        Reply(
            "An adult passport renewal costs 1,300 dollars [{n}]. It takes fo",
            cut=True,
            cite="1,300",
        ),
    ]
    with caplog.at_level(logging.WARNING):
        events, result = await _run(service, "passport renewal fee?")
    assert any(isinstance(e, Reset) for e in events)  # the partial text leaves the screen
    assert result.decision_path[-2] == "response_synth:fallback_extractive"  # type: ignore[attr-defined]
    assert "1,300 dollars" in result.answer  # type: ignore[attr-defined]
    assert result.llm_calls == 2  # type: ignore[attr-defined]  # shown text is not asked again
    assert "ended without a finish reason" in caplog.text


async def test_an_endpoint_without_v1_says_so(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI, caplog
) -> None:  # type: ignore[no-untyped-def]
    service = await _service(db, ingestion, searcher, fake.url.removesuffix("/v1"), retries=0)
    with caplog.at_level(logging.WARNING):
        _, result = await _run(service, "passport renewal fee?")
    assert "1,300 dollars" in result.answer  # type: ignore[attr-defined]  # the rules answered
    assert "LLM_BASE_URL ends with /v1" in caplog.text
