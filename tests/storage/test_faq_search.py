"""FAQ entries found by citizens' paraphrases, on real Postgres with the local embedder."""

from __future__ import annotations

import pytest

from storage.ingestion import IngestionService
from storage.search import HybridSearcher, SearchFilters
from tests.support.faq_entries import CROSS_LANGUAGE, ENTRIES, faq_page


@pytest.fixture
async def one_page(ingestion: IngestionService) -> None:
    result = await ingestion.ingest_bytes("city-faq.txt", faq_page(ENTRIES).encode())
    assert result.status == "added"


async def test_every_paraphrase_ranks_its_entry_first_on_one_page(
    one_page: None, searcher: HybridSearcher
) -> None:
    missed = []
    for entry in ENTRIES:
        hits = await searcher.search(entry.asked, top_k=5, per_document=5)
        if not hits or hits[0].question != entry.question:
            missed.append((entry.asked, hits[0].question if hits else None))
    assert missed == []


async def test_every_paraphrase_ranks_its_entry_first_one_file_per_entry(
    ingestion: IngestionService, searcher: HybridSearcher
) -> None:
    for n, entry in enumerate(ENTRIES):
        body = faq_page([entry]).encode()
        assert (await ingestion.ingest_bytes(f"faq-{n}.txt", body)).status == "added"
    missed = []
    for n, entry in enumerate(ENTRIES):
        hits = await searcher.search(entry.asked, top_k=5)
        if not hits or hits[0].document != f"faq-{n}":
            missed.append((entry.asked, hits[0].document if hits else None))
    assert missed == []


async def test_a_question_in_another_language_finds_its_entry(
    one_page: None, ingestion: IngestionService, searcher: HybridSearcher
) -> None:
    # a Traditional-Chinese FAQ page beside the English one
    page = faq_page(CROSS_LANGUAGE).encode()
    assert (await ingestion.ingest_bytes("市民常見問題.txt", page)).status == "added"
    for entry in CROSS_LANGUAGE:
        hits = await searcher.search(entry.asked, top_k=3, per_document=5)
        assert entry.question in [h.question for h in hits], entry.asked


async def test_every_chunk_of_an_entry_keeps_its_question(
    ingestion: IngestionService, searcher: HybridSearcher
) -> None:
    steps = " ".join(f"Step {i}: fill in box {i} of the form." for i in range(40))
    page = faq_page(ENTRIES[:3]) + f"\n\nQ: How do I fill in the tax return?\nA: {steps}"
    assert (await ingestion.ingest_bytes("tax.txt", page.encode())).chunks > 4
    hits = await searcher.search("box 37 of the form", top_k=3, per_document=3)
    assert hits[0].question == "How do I fill in the tax return?"
    assert "box 37" in hits[0].text


async def test_an_entry_of_a_collection_the_reader_cannot_see_is_never_found(
    ingestion: IngestionService, searcher: HybridSearcher
) -> None:
    staff = faq_page(ENTRIES[:1]).encode()
    citizens = faq_page(ENTRIES[1:4]).encode()
    assert (await ingestion.ingest_bytes("staff.txt", staff, collection="internal")).chunks
    assert (await ingestion.ingest_bytes("public.txt", citizens)).chunks
    # asked exactly like the internal entry's question: its question vector is the
    # nearest, yet a public reader's search never returns it
    public = SearchFilters(collections=("public",))
    hits = await searcher.search(ENTRIES[0].question, top_k=5, filters=public, per_document=5)
    assert hits and all(h.document == "public" for h in hits)
    inside = await searcher.search(ENTRIES[0].question, top_k=1, per_document=5)
    assert inside[0].document == "staff"
