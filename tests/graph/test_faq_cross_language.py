"""An FAQ page in English asked in Chinese, without a model (real Postgres, the local
embedder): an entry answers only the question it states, never a sibling's."""

from __future__ import annotations

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.cross_language import add_question_leads, asks_entry_question
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
ASKED = "換發護照要多少錢？"  # "how much is a passport renewal?"


async def _service(
    entries: list[tuple[str, str]],
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
) -> AnswerService:
    page = "\n\n".join(f"Q: {q}\nA: {a}" for q, a in entries)
    assert (await ingestion.ingest_bytes("passport-faq.txt", page.encode())).chunks
    return AnswerService(db, GraphContext(searcher=searcher, embedder=embedder.model))


async def test_a_chinese_question_is_answered_from_the_entry_that_asks_it(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    service = await _service([FEE, TIME, PLACE], db, ingestion, searcher, embedder)
    result = await service.ask(ASKED)
    assert result.outcome == "answered" and result.llm_calls == 0
    assert result.citations[0]["document"] == "passport-faq"
    assert "1,300 dollars" in result.answer
    assert TIME[1] not in result.answer and FEE[0] not in result.answer


async def test_without_its_entry_the_question_is_refused_not_answered_by_a_sibling(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    # the processing-time entry is on the topic (renewing a passport), and its
    # answer would be quoted by meaning alone; it answers another question
    service = await _service([TIME, PLACE], db, ingestion, searcher, embedder)
    result = await service.ask(ASKED)
    assert result.outcome == "refused", result.answer
    assert result.citations == []


def _entry(question: str, cosine: float, document: str = "faq") -> dict[str, object]:
    return {
        "document": document,
        "question": question,
        "question_cosine": cosine,
        "cross_language": True,
    }


def test_an_entry_must_ask_the_question_and_lead_the_other_entries() -> None:
    fee, time, fee_part = _entry("fee?", 0.72), _entry("time?", 0.69), _entry("fee?", 0.72)
    add_question_leads([fee, time, fee_part])
    # a long entry's second chunk is the same entry, not a competitor
    assert fee["question_lead"] == fee_part["question_lead"] == 0.03
    assert not asks_entry_question(fee)  # too close to a sibling's question
    alone = _entry("fee?", 0.72)
    add_question_leads([alone, _entry("place?", 0.5)])
    assert asks_entry_question(alone)
    far = _entry("time?", 0.6)
    add_question_leads([far])
    assert not asks_entry_question(far)  # under MIN_QUESTION, however alone
    # a passage that is no FAQ entry, or not yet compared: not judged here
    assert asks_entry_question({"cross_language": True, "cosine": 0.5})
    assert asks_entry_question({"question": "fee?", "cross_language": True})
