"""FAQ entries judged by their question in context (real Postgres, the local embedder,
no model): two documents asking the same questions each answer for their own topic,
and a copy of a page does not silence the original."""

from __future__ import annotations

from typing import Any

from graph.cross_entries import add_question_leads, entry_question
from graph.cross_language import add_sentence_cosines
from graph.entry_question import add_question_cosines, states_asked_question
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import answer_service

FISHING = (
    "# Fishing licence\n\n"
    "## How do I apply?\n\nApply for a fishing licence online at the Fisheries Office portal.\n\n"
    "## What does it cost?\n\nA fishing licence costs 120 dollars a year.\n"
)
DOG = (
    "# Dog licence\n\n"
    "## How do I apply?\n\nApply for a dog licence at the Animal Services counter, Town Hall.\n\n"
    "## What does it cost?\n\nA dog licence costs 35 dollars a year.\n"
)
PASSPORT = "\n\n".join(
    f"Q: {q}\nA: {a}"
    for q, a in (
        (
            "How much does it cost to renew a passport?",
            "The passport renewal fee is 1,300 dollars, paid at the counter.",
        ),
        (
            "How long does it take to renew a passport?",
            "Processing takes 4 working days; an urgent renewal is ready the next day.",
        ),
        ("Where can I renew my passport?", "At the City Service Centre, 1 Harbour Road."),
    )
)


async def test_the_same_questions_in_two_documents_answer_for_their_own_topic(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    files = {"fishing_licence.md": FISHING, "dog_licence.md": DOG}
    service = await answer_service(files, db, ingestion, searcher, embedder)
    for asked, document, answer in (
        ("How much does a fishing licence cost?", "fishing_licence", "120 dollars"),
        ("Where do I apply for a dog licence?", "dog_licence", "Animal Services"),
        ("钓鱼执照要多少钱？", "fishing_licence", "120 dollars"),
    ):
        result = await service.ask(asked)
        assert result.outcome == "answered" and result.llm_calls == 0, (asked, result.answer)
        assert result.citations[0]["document"] == document, (asked, result.citations)
        assert answer in result.answer, (asked, result.answer)


async def test_a_copy_of_a_page_does_not_silence_the_original(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    # byte-identical files are stored once: the copy carries a line of its own
    copy = f"Copied from the passport page on 2026-11-01.\n\n{PASSPORT}"
    files = {"passport-faq.txt": PASSPORT, "renewals-copy.txt": copy}
    service = await answer_service(files, db, ingestion, searcher, embedder)
    for asked in ("what's the price of renewing my passport", "換發護照要多少錢？"):
        result = await service.ask(asked)
        assert result.outcome == "answered", (asked, result.answer)
        assert "1,300 dollars" in result.answer, (asked, result.answer)


def test_an_entry_is_compared_under_its_title_and_heading() -> None:
    entry = {"document": "fishing_licence", "heading": "What does it cost?"}
    assert entry_question({**entry, "question": "What does it cost?"}) == (
        "fishing licence. What does it cost?"
    )
    fees = {"document": "faq-page-3", "heading": "Fees", "question": "What does it cost?"}
    assert entry_question(fees) == "faq page 3. Fees. What does it cost?"


def test_entries_with_the_same_compared_text_or_content_do_not_compete() -> None:
    def entry(document: str, cosine: float, text: str = "Q: fee?\nA: 10") -> dict[str, Any]:
        return {"document": document, "question": "fee?", "text": text, "question_cosine": cosine}

    original, copy = entry("faq", 0.6), entry("faq-copy", 0.59)
    add_question_leads([original, copy])
    assert original["question_lead"] == 0.6 and copy["question_lead"] == 0.59
    # the same title and question in two collections: one entry too
    here, there = entry("faq", 0.6), entry("faq", 0.6, "Q: fee?\nA: 20")
    add_question_leads([here, there])
    assert here["question_lead"] == there["question_lead"] == 0.6
    # the same question under another title, answered otherwise: a competitor
    fishing, dog = entry("fishing", 0.6), entry("dog", 0.58, "Q: fee?\nA: 35")
    add_question_leads([fishing, dog])
    assert fishing["question_lead"] == 0.02 and not states_asked_question(fishing)


class _OtherEmbedder:
    """An embedder the thresholds were not measured on (say, an OpenAI-compatible one)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


async def test_with_another_embedder_entries_are_not_judged() -> None:
    same = {"document": "faq", "question": "fee?", "text": "Q: fee?\nA: 10", "cosine": 0.5}
    other = {**same, "cross_language": True, "language": "zh-hans"}
    await add_question_cosines(_OtherEmbedder(), "how much?", [same])
    await add_sentence_cosines(_OtherEmbedder(), "how much?", [other])
    assert "question_cosine" not in same and "question_cosine" not in other
    assert "sentence_cosine" in other  # the passage itself is still judged by meaning
    add_question_leads([same, other])
    assert states_asked_question(same)
