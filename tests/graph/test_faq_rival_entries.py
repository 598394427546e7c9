"""An FAQ entry must lead every entry near the question, not only the ones a search kept.

Real Postgres and the local embedder, no model. A turn's searches keep the
passages over the relevance threshold (mostly keyword coverage): a colloquial
question often brings one entry alone, which then led no other entry. The
entries nearest the question in the whole collection compete too
(graph.entry_question.add_rival_cosines).
"""

from __future__ import annotations

from graph.cross_entries import add_entry_cosines
from graph.entry_question import add_question_cosines, add_rival_cosines, states_asked_question
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import answer_service, faq_page

LOST = (
    "What should I do if my passport is lost or stolen while I am abroad?",
    "Report the loss to the local police and contact the nearest embassy or consulate. The"
    " consulate can issue an emergency travel document valid for a single journey home.",
)
RENEW = (
    "How do I renew an adult passport?",
    "Apply online or at a passport office with your current passport and a recent photo."
    " Renewal costs 85 euros and usually takes three weeks.",
)
CHILD = (
    "How do I apply for a child's first passport?",
    "Both parents must sign the application, and the child must attend the appointment in"
    " person. Children's passports are valid for five years.",
)
URGENT = (
    "Can I get a passport urgently through the fast-track service?",
    "Yes, the fast-track service issues a passport within three working days for an extra"
    " fee of 60 euros.",
)
NAME = (
    "How do I change the name in my passport after marriage?",
    "Apply for a new passport with your marriage certificate and current passport. The fee"
    " is the same as a renewal.",
)
STATUS = (
    "How can I check the status of my passport application?",
    "Use the online tracker with your application reference number. You will also get a"
    " text message when the passport is ready for collection.",
)
ASKED = "where is my passport"
ENTRIES = [LOST, RENEW, CHILD, URGENT, NAME, STATUS]


async def test_rivals_are_the_nearest_other_entries_found_or_not(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    assert (await ingestion.ingest_bytes("passports.txt", faq_page(ENTRIES).encode())).chunks
    # the renewal entry as a search kept it, alone
    renew = next(h for h in await searcher.search(ASKED, per_document=6) if h.question == RENEW[0])
    found = {"document": renew.document, "heading": renew.heading, "text": renew.text}
    item = {**found, "question": RENEW[0]}
    await add_question_cosines(embedder.model, ASKED, [item])
    await add_rival_cosines(embedder.model, searcher, ASKED, [item])
    # the best cosine of the other entries' questions, each as add_entry_cosines reads it
    others = [{"document": "passports", "question": q} for q, _ in ENTRIES if q != RENEW[0]]
    await add_entry_cosines(embedder.model, ASKED, others)
    assert item["rival_cosine"] == max(o["question_cosine"] for o in others)


async def test_the_entry_asked_answers_among_its_rivals(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    service = await answer_service(
        {"passports.txt": faq_page(ENTRIES)}, db, ingestion, searcher, embedder
    )
    result = await service.ask("my name changed do i need a new passport")
    assert result.outcome == "answered", result.decision_path
    assert "marriage certificate" in result.answer


async def test_without_it_a_sibling_found_with_few_others_does_not_answer(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    # every sibling holds "passport"; none asks where an application is
    page = faq_page([e for e in ENTRIES if e != STATUS])
    service = await answer_service({"passports.txt": page}, db, ingestion, searcher, embedder)
    result = await service.ask(ASKED)
    assert result.outcome == "refused", result.answer
    assert result.citations == []


def test_an_entry_must_lead_its_rivals_too() -> None:
    alone = {"document": "faq", "question": "renew?", "question_cosine": 0.40}
    assert states_asked_question(alone)  # led no one: its own cosine is its lead
    assert not states_asked_question({**alone, "rival_cosine": 0.37})
    assert states_asked_question({**alone, "rival_cosine": 0.30})
    # the lead over the entries found still counts
    assert not states_asked_question({**alone, "question_lead": 0.02, "rival_cosine": 0.1})


async def test_a_plain_document_beside_an_faq_is_answered(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    # a plain document's passages have no question: compared with the FAQ's entries as
    # rivals, they are no entry's copy (and no error)
    library = (
        "# Library cards\n\nA library card is free for residents. Library cards are issued"
        " at the Central Library counter on Harbour Road.\n"
    )
    service = await answer_service(
        {"passports.txt": faq_page(ENTRIES), "library.md": library},
        db,
        ingestion,
        searcher,
        embedder,
    )
    result = await service.ask("Where are library cards issued?")
    assert result.outcome == "answered", result.decision_path
    assert "Central Library counter" in result.answer
