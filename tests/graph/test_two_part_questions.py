"""Two-part questions through the whole graph in no-LLM mode: each part answered and
cited, or said missing, in one reply; a single ask with a coordinated noun phrase
goes the single path as before."""

from __future__ import annotations

import re

import pytest
from pytest import MonkeyPatch

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.nodes import planner
from storage.db import Database
from storage.ingestion import IngestionService
from storage.search import HybridSearcher

DOCS = {
    "passport.md": (
        "# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
        "## Fees\n\nAn adult passport renewal costs 1,300 dollars and takes four working days.\n\n"
        "## Documents to bring\n\nTo renew a passport, bring your old passport, one colour "
        "photo taken in the last six months and your national ID card.\n"
    ),
    "護照換發.md": (
        "# 護照換發\n\n成年人可以在市民服務中心換發護照。\n\n"
        "## 費用\n\n換發護照每本收費新臺幣一千三百元。\n\n"
        "## 應備文件\n\n換發護照請攜帶舊護照、六個月內彩色照片一張及國民身分證正本。\n"
    ),
    "library.md": (
        "# City library\n\nThe city library lends books to every resident.\n\n"
        "## Opening hours\n\nThe library is open from 9 am to 8 pm, Monday to Saturday.\n"
    ),
}


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher
) -> AnswerService:
    for name, body in DOCS.items():
        assert (await ingestion.ingest_bytes(name, body.encode())).status == "added"
    return AnswerService(db, GraphContext(searcher=searcher))


def cited_line(answer: str, words: str) -> str:
    """The answer's line holding `words`; it must carry a citation."""
    line = next(line for line in answer.splitlines() if words in line)
    assert re.search(r"\[\d+\]$", line), line
    return line


async def test_english_two_part_question_answers_the_fee_and_the_documents(
    service: AnswerService,
) -> None:
    result = await service.ask(
        "How much does it cost to renew a passport and what documents do I need to bring?"
    )
    assert result.outcome == "answered"
    cited_line(result.answer, "1,300 dollars")
    cited_line(result.answer, "colour photo")
    assert "don't say" not in result.answer
    assert [c["document"] for c in result.citations] == ["passport"]
    assert "planner:split:2" in result.decision_path
    assert "response_synth:parts:answered,answered" in result.decision_path
    assert 'On "what documents do I need to bring":' in result.answer
    # each part's answering sentence comes first under its heading
    lines = result.answer.splitlines()
    fee = lines.index('On "How much does it cost to renew a passport":')
    bring = lines.index('On "what documents do I need to bring":')
    assert "1,300 dollars" in lines[fee + 1] and "colour photo" in lines[bring + 1]


async def test_chinese_two_part_question_answers_both_parts(service: AnswerService) -> None:
    result = await service.ask("護照換發要多少錢？要帶什麼文件？")
    assert result.outcome == "answered" and result.language == "zh-hant"
    cited_line(result.answer, "一千三百元")
    cited_line(result.answer, "舊護照")
    assert "關於「要帶什麼文件」：" in result.answer
    assert "response_synth:parts:answered,answered" in result.decision_path


async def test_simplified_two_part_question_answers_both_parts(service: AnswerService) -> None:
    result = await service.ask("换护照多少钱，需要带什么材料")
    assert result.outcome == "answered" and result.language == "zh-hans"
    cited_line(result.answer, "一千三百元")
    cited_line(result.answer, "旧护照")


async def test_a_part_the_documents_do_not_cover_is_said_missing(
    service: AnswerService,
) -> None:
    result = await service.ask(
        "How much does it cost to renew a passport and can I bring my pet parrot to the office?"
    )
    assert result.outcome == "answered"
    cited_line(result.answer, "1,300 dollars")
    assert result.answer.splitlines()[-1] == "- Our documents don't say this."
    assert "response_synth:parts:answered,missing" in result.decision_path
    assert [c["document"] for c in result.citations] == ["passport"]


async def test_citation_numbers_run_across_the_parts(service: AnswerService) -> None:
    result = await service.ask(
        "How much does a passport renewal cost and when is the city library open?"
    )
    assert [c["n"] for c in result.citations] == [1, 2]
    assert cited_line(result.answer, "1,300 dollars").endswith("[1]")
    assert cited_line(result.answer, "9 am to 8 pm").endswith("[2]")


async def test_a_coordinated_noun_phrase_goes_the_single_path(
    service: AnswerService, db: Database, searcher: HybridSearcher, monkeypatch: MonkeyPatch
) -> None:
    asked = "What are the passport renewal fees and working days?"
    result = await service.ask(asked)
    assert not any(s.startswith("planner:split") for s in result.decision_path)
    assert not any(":parts" in s for s in result.decision_path)
    assert "1,300 dollars" in result.answer and "[1]" in result.answer
    # the same answer as with no splitting at all
    monkeypatch.setattr(planner, "split_question", lambda question: [])
    unsplit = await AnswerService(db, GraphContext(searcher=searcher)).ask(asked)
    assert (unsplit.answer, unsplit.citations) == (result.answer, result.citations)
