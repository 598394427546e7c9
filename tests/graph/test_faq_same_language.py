"""An English FAQ page of close siblings asked in English, without a model (real
Postgres, the local embedder): an entry answers the question it states; with it
removed, a sibling sharing the page's words does not answer in its place."""

from __future__ import annotations

from graph.cross_entries import add_question_leads
from graph.entry_question import states_asked_question
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import FEE, PHOTO, PLACE, TIME, answer_service, faq_page

ASKED = "what's the price of renewing my passport"


async def test_a_paraphrase_is_answered_from_the_entry_that_asks_it(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    service = await answer_service(
        {"passport-faq.txt": faq_page([FEE, TIME, PLACE, PHOTO])}, db, ingestion, searcher, embedder
    )
    result = await service.ask(ASKED)
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert result.citations[0]["document"] == "passport-faq"
    assert "1,300 dollars" in result.answer
    assert TIME[1] not in result.answer and PHOTO[1] not in result.answer


async def test_without_its_entry_the_paraphrase_is_refused_not_answered_by_a_sibling(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    # the siblings hold "renew" and "passport" as the question does: the word-based
    # test alone grounds one of them; none states the question asked
    service = await answer_service(
        {"passport-faq.txt": faq_page([TIME, PLACE, PHOTO])}, db, ingestion, searcher, embedder
    )
    result = await service.ask(ASKED)
    assert result.outcome == "refused", result.answer
    assert result.citations == []


def _entry(question: str, cosine: float) -> dict[str, object]:
    return {"document": "faq", "question": question, "question_cosine": cosine}


def test_an_entry_must_lead_the_other_entries_questions() -> None:
    fee, time = _entry("fee?", 0.42), _entry("time?", 0.40)
    add_question_leads([fee, time])
    assert fee["question_lead"] == 0.02
    assert not states_asked_question(fee)  # too close to a sibling's question
    far = _entry("fee?", 0.35)
    add_question_leads([far, _entry("time?", 0.2)])
    assert states_asked_question(far)  # no cosine floor in the question's language
    # another language's entry competes only with entries in that language
    alone = _entry("fee?", 0.4)
    add_question_leads([alone, {**_entry("time?", 0.9), "cross_language": True}])
    assert alone["question_lead"] == 0.4 and states_asked_question(alone)
    # a passage that is no FAQ entry, or not yet compared: not judged here
    assert states_asked_question({"cosine": 0.5})
    assert states_asked_question({"question": "fee?"})
