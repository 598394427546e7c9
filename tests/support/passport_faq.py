"""An English passport FAQ page of close sibling entries, and a no-model answer service
over files ingested for one test (real Postgres, the local embedder)."""

from __future__ import annotations

from pathlib import Path

import bot
from bot.turn.service import AnswerService
from graph.context import GraphContext
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher

FEE = (
    "How much does it cost to renew a passport?",
    "The passport renewal fee is 1,300 dollars, paid at the counter.",
)
TIME = (
    "How long does it take to renew a passport?",
    "Processing takes 4 working days; an urgent renewal is ready the next day.",
)
PLACE = (
    "Where can I renew my passport?",
    "At the City Service Centre, 1 Harbour Road, Monday to Friday.",
)
PHOTO = (
    "What photo do I need to renew a passport?",
    "One colour photo taken in the last six months, 35 by 45 millimetres.",
)


def faq_page(entries: list[tuple[str, str]]) -> str:
    """The entries as one FAQ page ("Q: … / A: …" lines)."""
    return "\n\n".join(f"Q: {q}\nA: {a}" for q, a in entries)


async def answer_service(
    files: dict[str, str],
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
) -> AnswerService:
    """`files` (name → text) ingested, and the graph without a model over them."""
    for name, text in files.items():
        assert (await ingestion.ingest_bytes(name, text.encode())).chunks
    return AnswerService(db, GraphContext(searcher=searcher, embedder=embedder.model))


async def sample_service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> AnswerService:
    """The shipped sample documents ingested, and the graph without a model over them."""
    samples = Path(bot.__file__).parent / "sample" / "docs"
    for path in sorted(samples.iterdir()):
        assert (await ingestion.ingest_bytes(path.name, path.read_bytes())).status == "added"
    return AnswerService(db, GraphContext(searcher=searcher, embedder=embedder.model))
