"""A thing with sibling things in the collection (a dog licence, a fishing licence, a
parking permit): a price is answered only from a passage about the thing asked, judged
passage by passage and, across languages, by the document nearest the thing (real
Postgres, the local embedder)."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot
from bot.turn.service import AnswerService
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.core_fixtures import DOCS
from tests.support.passport_faq import answer_service

SAMPLES = Path(bot.__file__).parent / "sample" / "docs"
FISHING = (
    "# Fishing licence\n\nAnyone aged 16 or over needs a fishing licence to fish in the "
    "city's rivers. An annual fishing licence costs 20 dollars; a one-day licence costs "
    "5 dollars.\n\n## Fishing from boats\n\nFishing from a boat is allowed on the reservoir "
    "from April to October. Boats must carry a life jacket for every person on board.\n"
)
DOG = (
    "# Dog licence\n\nEvery dog older than five months must have a dog licence. A dog "
    "licence costs 35 dollars a year.\n"
)


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> AnswerService:
    files = {p.name: p.read_text() for p in sorted(SAMPLES.iterdir())}
    files |= {"fishing-licence.md": FISHING, "dog-licence.md": DOG}
    return await answer_service(files, db, ingestion, searcher, embedder)


async def test_a_word_named_by_another_sections_heading_is_that_sections(
    service: AnswerService,
) -> None:
    # the fishing page speaks of boats in another section: its fee is no boat licence's
    result = await service.ask("How much does a boat licence cost?")
    assert "20 dollars" not in result.answer, result.answer
    result = await service.ask("How much does a fishing licence cost?")
    assert result.outcome == "answered", result.answer
    assert "20 dollars" in result.answer, result.answer
    # a word another section holds under no heading naming it is still the page's
    result = await service.ask("How much does urgent passport service cost?")
    assert result.outcome == "answered", result.answer
    assert "900 dollars" in result.answer, result.answer


async def test_a_passage_in_another_language_must_be_of_the_document_nearest_the_thing(
    service: AnswerService,
) -> None:
    # the Chinese permit is nearer "taxi licence" than the way of asking is, but the
    # English licence pages are nearer still: its fee is another thing's
    for asked in ("How much does a taxi licence cost?", "How much does a boat licence cost?"):
        result = await service.ask(asked)
        assert "1,200" not in result.answer, (asked, result.answer)
    # books borrowed are the library's, not the passport's days
    result = await service.ask("我可以借几本书？")
    assert "working days" not in result.answer, result.answer
    # the thing asked of, in either language, is still answered from its own page
    for asked, fee in (
        ("停車許可證多少錢？", "元"),
        ("How much does a parking permit cost?", "元"),
        ("How much does a dog licence cost?", "35"),
    ):
        result = await service.ask(asked)
        assert result.outcome == "answered", (asked, result.answer)
        assert fee in result.answer, (asked, result.answer)


async def test_a_subject_word_is_held_in_another_form_of_its_stem(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    files = {
        "parking_permit.md": "# Parking permit\n\nA permit renewal costs 60 dollars a year.\n",
        "dog_licence.md": DOG,
    }
    service = await answer_service(files, db, ingestion, searcher, embedder)
    # "renewing" is the page's "renewal"
    result = await service.ask("What does renewing the permit cost?")
    assert result.outcome == "answered", result.answer
    assert "60 dollars" in result.answer, result.answer
    # a stem names no other thing: the dog licence's price is still no permit's
    result = await service.ask("What does renewing the fishing licence cost?")
    assert "35 dollars" not in result.answer, result.answer


async def test_the_pages_title_as_its_first_heading_names_no_other_thing(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    # the permit page opens under a heading that is its own title (# 住宅區停車許可證):
    # the words it names there are what every section of the page is about, not another
    # section's thing, so the fee section answers the permit's price
    service = await answer_service(DOCS, db, ingestion, searcher, embedder)
    result = await service.ask("住宅區停車許可證一年多少錢？")
    assert result.outcome == "answered", (result.answer, result.decision_path)
    assert "一千二百" in result.answer, result.answer
