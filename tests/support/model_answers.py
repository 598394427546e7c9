"""The answer service with the fake OpenAI-compatible model over ingested documents, and
the synth replies the graph's model tests script."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.models import build_chat_model, warm_chat_model
from storage.db import Database
from storage.embeddings import Embedder
from storage.forms import FormFinder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.fake_openai import FakeOpenAI, Reply

# the `over_document` fixture (tests/graph/conftest.py): (name, text) -> the service
OverDocument = Callable[[str, str], Awaitable[AnswerService]]


def resting_on(needle: str, claim: str) -> Reply:
    """A synth reply: one claim resting on the source sentence holding `needle`."""
    body = {"answerable": True, "claims": [{"sentence": "{id}", "claim": claim}]}
    return Reply(json.dumps(body, ensure_ascii=False), cite=needle)


async def answering_over(
    db: Database,
    searcher: HybridSearcher,
    ingestion: IngestionService,
    embedder: Embedder,
    fake: FakeOpenAI,
    name: str,
    document: str,
) -> AnswerService:
    """The answer service with the fake model (its client warmed), over one ingested
    document."""
    llm = build_chat_model(fake.url, "test-key", "fake-model", timeout=5.0)
    warm_chat_model(llm)  # its first request's imports, not inside a timed turn
    context = GraphContext(
        searcher=searcher,
        forms=FormFinder(db),
        llm=llm,
        llm_timeout=5.0,
        embedder=embedder.model,
        screen_embedder=embedder.model,  # as the runtime does with the local model
    )
    assert (await ingestion.ingest_bytes(name, document.encode())).status == "added"
    return AnswerService(db, context)
