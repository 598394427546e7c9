"""An FAQ entry whose question asks what the user asks answers, whatever words it shares.

Real Postgres and the local embedder, no model. A colloquial question may share
no content word with its entry's answer, and fall under the relevance
threshold: the entry answers when its question leads the collection's other
entries near the question (graph.entry_question.answers_by_meaning), and is
quoted; with it removed, the nearest other entry does not answer in its place.
"""

from __future__ import annotations

from graph.entry_question import MEANING_LEAD, answers_by_meaning
from graph.grounding import is_grounded
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import answer_service, faq_page

SPILL = (
    "What should I do if I spill a drink on my laptop?",
    "Switch it off at once, unplug the charger and turn it upside down to drain. Bring it to"
    " the IT bar the same day; do not try to dry it with a hair dryer.",
)
SLOW = (
    "Why is my laptop running slowly?",
    "Restart it at least once a week and close browser tabs you do not need. If it stays"
    " sluggish, the IT bar can check the disk and memory.",
)
PRINTER = (
    "How do I add a printer?",
    "Open Settings, Printers, and choose Add device. Office printers are named after the"
    " floor they stand on.",
)
WIFI = (
    "How do I connect to the office Wi-Fi?",
    "Choose the network StaffNet and sign in with your staff account. Guests use the"
    " network Visitors with the code from reception.",
)
PASSWORD = (
    "How do I reset my password?",
    "Go to id.example.com and choose Forgot password. A reset link is sent to your recovery phone.",
)
ENTRIES = [SPILL, SLOW, PRINTER, WIFI, PASSWORD]
ASKED = "tipped my coffee onto my computer"


async def test_a_paraphrase_sharing_no_word_with_the_answer_is_answered_from_its_entry(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    service = await answer_service(
        {"it-help.txt": faq_page(ENTRIES)}, db, ingestion, searcher, embedder
    )
    result = await service.ask(ASKED)
    assert result.outcome == "answered" and result.llm_calls == 0, result.decision_path
    assert [c["document"] for c in result.citations] == ["it-help"]
    # the entry's answer quoted, none of its siblings'
    assert any(s in result.answer for s in ("Switch it off", "IT bar the same day")), result.answer
    assert not any(e[1][:30] in result.answer for e in ENTRIES if e != SPILL)


async def test_with_its_entry_removed_the_nearest_entry_does_not_answer(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    page = faq_page([e for e in ENTRIES if e != SPILL])
    service = await answer_service({"it-help.txt": page}, db, ingestion, searcher, embedder)
    result = await service.ask(ASKED)
    assert result.outcome == "refused", result.answer
    assert result.citations == []


def _entry(cosine: float, **signals: float) -> dict[str, object]:
    # an entry sharing no word with the question: the word-based test fails it
    return {"document": "faq", "question": "spill?", "question_cosine": cosine, **signals}


def test_an_entry_answers_by_meaning_only_when_it_leads_the_collection() -> None:
    lead = MEANING_LEAD + 0.01
    assert is_grounded(_entry(0.45, rival_cosine=0.45 - lead, question_lead=0.45))
    # too close to the nearest other entry in the collection, or to one the turn found
    assert not answers_by_meaning(_entry(0.45, rival_cosine=0.40, question_lead=0.45))
    assert not answers_by_meaning(_entry(0.45, rival_cosine=0.1, question_lead=0.05))
    # the collection not compared (no rival search, or another embedder): not by meaning
    assert not answers_by_meaning(_entry(0.45, question_lead=0.45))
    assert not answers_by_meaning({"document": "faq", "question": "spill?", "cosine": 0.9})
    # far from every entry: it asks none of them
    assert not answers_by_meaning(_entry(0.2, rival_cosine=0.0, question_lead=0.2))
    # another language's entry is judged by graph.cross_language
    crossing = {**_entry(0.45, rival_cosine=0.1, question_lead=0.45), "cross_language": True}
    assert not answers_by_meaning(crossing)


async def test_a_collections_only_entry_leads_nothing_and_answers_no_paraphrase_by_meaning(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    # with no other entry to lead, meaning alone would let the one entry answer every
    # question near it: only the word-based rule judges it
    service = await answer_service(
        {"it-help.txt": faq_page([SLOW])}, db, ingestion, searcher, embedder
    )
    result = await service.ask("my laptop screen is cracked")
    assert result.outcome == "refused", result.answer
    assert result.citations == []
