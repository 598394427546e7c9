"""Questions in another language than the documents, answered without a model (real
Postgres, the local embedder), and how extractive answers read."""

from __future__ import annotations

import pytest

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.cross_language import add_meaning_leads, is_grounded_by_meaning
from storage.db import Database
from storage.embeddings import Embedder
from storage.forms import FormFinder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher

DOCS = {
    "停車許可證.md": (
        "# 住宅區停車許可證\n\n設籍本市的居民可以申請住宅區停車許可證，每戶最多兩張。\n\n"
        "## 費用\n\n每張許可證每年收費新臺幣一千二百元，可於市民服務中心繳費。\n"
    ),
    "Passport renewal.md": (
        "# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
        "## Fees and processing time\n\nThe passport renewal fee is 1,300 dollars. "
        "Processing takes 4 working days at the counter.\n"
    ),
    "office-hours.txt": (
        "City Service Centre opening hours\n\n"
        "The City Service Centre at 1 Harbour Road is open Monday to Friday from 8:30 to 17:30."
        "\nBring one of:\n- your identity card\n- your passport\n\n"
        "Phone enquiries: 1999.\n"
    ),
}


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> AnswerService:
    for name, body in DOCS.items():
        assert (await ingestion.ingest_bytes(name, body.encode())).status == "added"
    context = GraphContext(searcher=searcher, forms=FormFinder(db), embedder=embedder.model)
    return AnswerService(db, context)


async def test_chinese_question_is_answered_from_the_english_document(
    service: AnswerService,
) -> None:
    result = await service.ask("護照換發要多少錢？")
    assert result.outcome == "answered" and result.llm_calls == 0
    assert result.citations[0]["document"] == "Passport renewal"
    # a lead in the reader's language naming the document's language, then the
    # document's own sentence, as written
    assert "以下摘自英文文件《Passport renewal》：" in result.answer
    assert "The passport renewal fee is 1,300 dollars." in result.answer


async def test_english_question_is_answered_from_the_chinese_document(
    service: AnswerService,
) -> None:
    result = await service.ask("How many residential parking permits can a household get?")
    assert result.outcome == "answered" and result.llm_calls == 0
    assert result.citations[0]["document"] == "停車許可證"
    assert "The Chinese document '停車許可證' says:" in result.answer
    assert "- 設籍本市的居民可以申請住宅區停車許可證，每戶最多兩張。 [1]" in result.answer


async def test_a_simplified_reader_sees_simplified_titles(service: AnswerService) -> None:
    result = await service.ask("停车许可证一年多少钱？")
    assert result.citations[0]["document"] == "停車許可證"  # what links and memory key on
    assert result.citations[0]["title"] == "停车许可证"
    traditional = await service.ask("停車許可證一年多少錢？")
    assert traditional.citations[0]["title"] == "停車許可證"


async def test_an_unrelated_question_in_another_language_is_refused(
    service: AnswerService,
) -> None:
    for question in ("火星上有多少顆衛星？", "Who painted the Mona Lisa?"):
        result = await service.ask(question)
        assert result.outcome == "refused", (question, result.answer)
        assert result.citations == []


async def test_an_extractive_answer_keeps_headings_and_list_items_apart(
    service: AnswerService,
) -> None:
    result = await service.ask("When is the City Service Centre open?")
    assert result.outcome == "answered"
    lines = result.answer.splitlines()
    assert "- The City Service Centre at 1 Harbour Road is open Monday to Friday" in "\n".join(
        lines
    )
    assert not any("opening hours The City" in line for line in lines)
    assert all("- your identity card - your passport" not in line for line in lines)


def test_a_passage_in_another_language_must_lead_the_other_documents() -> None:
    def passage(document: str, sentence: float, words: float) -> dict[str, object]:
        return {
            "document": document,
            "cross_language": True,
            "cosine": 0.4,
            "sentence_cosine": sentence,
            "word_coverage": words,
        }

    answer = passage("Warsaw §3", 0.45, 0.8)
    neighbour = passage("Warsaw §4", 0.4, 0.2)
    add_meaning_leads([answer, neighbour])
    assert is_grounded_by_meaning(answer) and not is_grounded_by_meaning(neighbour)
    # the answer's paragraph gone: its neighbour leads nothing close enough to stand alone
    twin = passage("Warsaw §5", 0.4, 0.2)
    add_meaning_leads([neighbour, twin])
    assert not is_grounded_by_meaning(neighbour)
    # the only document in that language: no lead over nothing, judged by meaning alone
    # (a collection's one Chinese page must not answer every English question)
    alone = passage("parking permit", 0.39, 0.0)
    add_meaning_leads([alone])
    assert "meaning_lead" not in alone and not is_grounded_by_meaning(alone)


def test_a_passage_leads_the_median_of_the_other_documents_not_its_nearest_neighbour() -> None:
    def passage(document: str, evidence: float) -> dict[str, object]:
        # meaning_grounding = sentence_support + ½·cosine
        return {
            "document": document,
            "cross_language": True,
            "cosine": 0.4,
            "sentence_support": evidence - 0.2,
            "word_coverage": 0.5,
        }

    answer, neighbour = passage("Warsaw §3", 0.75), passage("Warsaw §4", 0.65)
    far = [passage("Warsaw §7", 0.4), passage("Chopin §1", 0.35)]
    add_meaning_leads([answer, neighbour, *far])
    # the article's next paragraph close behind does not refuse the answer: the turn's
    # other passages are far under it
    assert is_grounded_by_meaning(answer) and not is_grounded_by_meaning(neighbour)
    # with the answer gone, the neighbour does not stand out enough from the rest
    add_meaning_leads([neighbour, *far])
    assert not is_grounded_by_meaning(neighbour)
