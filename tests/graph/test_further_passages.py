"""A question asking a kind of answer reads its leading document's further passages holding
it (graph.further_passages), and a Chinese question reads the documents in the other script
by the question written in it (graph.other_script) (real Postgres, the local embedder)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.further_passages import holding_kind, leading_documents
from graph.other_script import fold_scripts, other_script
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import sample_service

# the fee sits in the fourth passage: the introduction and the items ranked above it
FURNITURE = (
    "# 大型家具回收服務\n\n"
    "本市環保局提供大型家具及廢棄家電的回收清運服務，市民不得將大型家具任意棄置於路旁。\n\n"
    "## 可回收項目\n\n"
    "沙發、床架、衣櫃、書桌、椅子等木製或金屬家具，以及冰箱、洗衣機等大型家電均可回收。\n\n"
    "## 申請方式\n\n請透過環保局網站或撥打清潔專線預約，並說明家具的種類與數量。\n\n"
    "## 收費標準\n\n每件大型家具清運費為新臺幣 300 元，每次最多可預約十件。低收入戶免收清運費。\n\n"
    "## 清運時間\n\n預約後約五個工作天內派車到府收取，清運時間為上午九點至下午四點。\n"
)


def first_item(answer: str) -> str:
    """The answer's first quoted sentence, without its `- ` and citation mark."""
    items = [line[2:] for line in answer.splitlines() if line.startswith("- ")]
    return items[0].rsplit(" [", 1)[0]


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> AnswerService:
    return await sample_service(db, ingestion, searcher, embedder)


async def test_an_english_question_quotes_the_annual_fee_of_a_later_passage_first(
    service: AnswerService,
) -> None:
    # the Traditional permit page: the annual fee, not the replacement fee of the
    # passage ranked above it
    result = await service.ask("How much does a parking permit cost?")
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert [c["document"] for c in result.citations] == ["停車許可證"], result.citations
    assert "1,200" in first_item(result.answer), result.answer


async def test_a_chinese_price_question_reads_a_passage_below_those_read_first(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    assert (await ingestion.ingest_bytes("大型家具回收.md", FURNITURE.encode())).chunks
    service = AnswerService(db, GraphContext(searcher=searcher, embedder=embedder.model))
    result = await service.ask("大型家具回收要多少錢？")
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert "300 元" in first_item(result.answer), result.answer


async def test_a_simplified_question_over_a_traditional_page_is_answered(
    service: AnswerService,
) -> None:
    result = await service.ask("停车证多少钱？")
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert [c["document"] for c in result.citations] == ["停車許可證"], result.citations
    assert "元" in first_item(result.answer), result.answer


async def test_a_duration_question_quotes_the_processing_time_first(
    service: AnswerService,
) -> None:
    result = await service.ask("護照要辦多久？")
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    first = first_item(result.answer)
    assert "4 working days" in first, result.answer
    assert "six months" not in result.answer, result.answer


def test_a_question_in_one_chinese_script_is_searched_in_the_other() -> None:
    assert other_script("停车证多少钱？") == "zh-hant"
    assert other_script("停車證多少錢？") == "zh-hans"
    assert other_script("How much does a parking permit cost?") is None
    # the same characters in both scripts: one search is enough
    assert other_script("大型家具") is None


def test_each_script_s_documents_come_from_the_search_written_in_it() -> None:
    written = [
        SimpleNamespace(chunk_id=1, language="zh-hans"),
        SimpleNamespace(chunk_id=2, language="zh-hant"),
    ]
    converted = [
        SimpleNamespace(chunk_id=3, language="zh-hant"),
        SimpleNamespace(chunk_id=4, language="en"),
    ]
    assert [h.chunk_id for h in fold_scripts(written, converted, "zh-hant")] == [1, 3]


def test_only_the_leading_document_with_more_passages_and_the_finest_kind_are_read() -> None:
    hits = [
        SimpleNamespace(document="a", cross_language=False, more=[7], text="x"),
        SimpleNamespace(document="b", cross_language=False, more=[8], text="x"),
        SimpleNamespace(document="c", cross_language=True, more=[], text="x"),
    ]
    assert leading_documents(hits) == ["a"]
    read = [SimpleNamespace(text="The pool is open to all.")]
    further = [
        SimpleNamespace(text="Children under eight need an adult."),
        SimpleNamespace(text="An annual membership costs 2,400 dollars."),
    ]
    # a price asked: the count of the first further passage does not answer it
    assert holding_kind("How much does a pool membership cost?", read, further) == [further[1]]
    assert holding_kind("Where is the pool?", read, further) == []
