"""An FAQ entry whose long answer is cut into many chunks still has rivals to lead.

Real Postgres and the local embedder, no model. Every chunk of a long answer
carries its entry's question and question vector, so the nearest chunks of
the collection can all be that one entry's: the entries an entry must lead
(graph.entry_question.add_rival_cosines) are searched as distinct entries,
each once (storage.nearest_entries), not as chunks.
"""

from __future__ import annotations

from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from storage.search_types import SearchFilters
from tests.support.passport_faq import answer_service, faq_page

LOST_QUESTION = "What should I do if my passport is lost or stolen while I am abroad?"
# one paragraph of twenty sentences: a dozen chunks of 500 characters
LOST_ANSWER = " ".join(
    [
        "Report the loss to the local police as soon as you can and ask for a written"
        " police report with its reference number.",
        "Contact the nearest embassy or consulate of your country and book an appointment"
        " for an emergency travel document.",
        "Bring the police report, a recent colour photo, and any copy or scan of the lost"
        " passport's data page that you kept.",
        "If you have no copy, bring another identity document such as a driving licence or"
        " a national identity card.",
        "The consulate checks your identity against the passport register before it issues"
        " anything, which may take a working day.",
        "The emergency travel document is valid for a single journey home and for no"
        " more than one month from its date of issue.",
        "It cannot be used to travel on to a third country unless the consulate writes that"
        " country into the document.",
        "The fee for the emergency travel document is 95 euros, paid in cash or by card at"
        " the consulate counter.",
        "Airlines accept the emergency travel document for check-in, but some require you to"
        " show it at the desk rather than online.",
        "If a visa was in the lost passport, ask the authorities of the country you are in"
        " for an exit permit or a replacement visa.",
        "Keep the police report with your emergency document: border guards may ask for it"
        " when you leave the country.",
        "Once home, the lost passport is cancelled in the register and can no longer be"
        " used, even if it is found again later.",
        "If it is found, hand it in at a passport office or post it to the passport"
        " authority so that it can be destroyed.",
        "To replace it, apply for a new passport at home with the police report and the"
        " emergency travel document you travelled on.",
        "A replacement passport costs the same as a renewal, and a lost-passport statement"
        " form must be filled in with the application.",
        "If the passport was stolen together with bank cards, block the cards with your"
        " bank before anything else.",
        "Travel insurance often covers the cost of the emergency document and of changed"
        " flights: keep every receipt for your claim.",
        "Children travelling with you who lost their passports need an emergency travel"
        " document of their own, signed by both parents.",
        "Consulates outside office hours keep an emergency line for citizens in distress,"
        " listed on the foreign ministry's website.",
        "Before travelling, keep a photo of your passport's data page in a safe place, such"
        " as an e-mail to yourself.",
    ]
)
OTHERS = [
    (
        "How do I renew an adult passport?",
        "Apply online or at a passport office with your current passport and a recent"
        " photo. Renewal costs 85 euros and usually takes three weeks.",
    ),
    (
        "How do I apply for a child's first passport?",
        "Both parents must sign the application, and the child must attend the appointment"
        " in person. Children's passports are valid for five years.",
    ),
    (
        "Can I get a passport urgently through the fast-track service?",
        "Yes, the fast-track service issues a passport within three working days for an"
        " extra fee of 60 euros.",
    ),
    (
        "How do I change the name in my passport after marriage?",
        "Apply for a new passport with your marriage certificate and current passport. The"
        " fee is the same as a renewal.",
    ),
    (
        "How can I check the status of my passport application?",
        "Use the online tracker with your application reference number. You will also get"
        " a text message when the passport is ready for collection.",
    ),
]
# no word of the entry's question: answered by meaning, or not at all
ASKED = "someone robbed me on vacation and took my travel documents"


async def test_the_nearest_entries_are_distinct_entries(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher
) -> None:
    page = faq_page([(LOST_QUESTION, LOST_ANSWER), *OTHERS])
    assert (await ingestion.ingest_bytes("passports.txt", page.encode())).chunks
    chunks = await searcher.search(ASKED, top_k=10, mode="vector", per_document=10)
    # the long answer's chunks are the nearest ten: a search by chunks finds one entry
    assert {h.question for h in chunks} == {LOST_QUESTION}
    entries = await searcher.search(ASKED, top_k=10, mode="entries", per_document=10)
    assert entries[0].question == LOST_QUESTION
    assert sorted(h.question for h in entries) == sorted([LOST_QUESTION, *(q for q, _ in OTHERS)])
    # each entry by its best chunk
    assert entries[0].chunk_id == chunks[0].chunk_id
    # two entries: the chunks first read (four an entry) are all the long answer's, and
    # more are read until another entry is among them
    two = await searcher.search(ASKED, top_k=2, mode="entries", per_document=2)
    assert [h.question for h in two] == [h.question for h in entries[:2]]
    # a collection's filter holds as in the other searches
    kept = SearchFilters(collections=("public",))
    public = await searcher.search(ASKED, top_k=10, mode="entries", filters=kept, per_document=10)
    assert [h.chunk_id for h in public] == [h.chunk_id for h in entries]
    elsewhere = SearchFilters(collections=("staff",))
    assert await searcher.search(ASKED, top_k=10, mode="entries", filters=elsewhere) == []


async def test_a_paraphrase_of_the_long_entry_is_answered_from_it(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    page = faq_page([(LOST_QUESTION, LOST_ANSWER), *OTHERS])
    service = await answer_service({"passports.txt": page}, db, ingestion, searcher, embedder)
    result = await service.ask(ASKED)
    assert result.outcome == "answered", result.decision_path
    assert [c["document"] for c in result.citations] == ["passports"]
    # the long entry's answer, not a sibling's
    assert "police" in result.answer or "consulate" in result.answer, result.answer


async def test_without_the_long_entry_the_paraphrase_is_refused(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    service = await answer_service(
        {"passports.txt": faq_page(OTHERS)}, db, ingestion, searcher, embedder
    )
    result = await service.ask(ASKED)
    assert result.outcome == "refused", result.answer
    assert result.citations == []
