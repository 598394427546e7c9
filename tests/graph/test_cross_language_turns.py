"""Cross-language turns over a collection whose documents share a topic: the answer's
neighbouring pages are close by meaning, and the passage that answers is still found
and quoted (real Postgres, the local embedder, no model)."""

from __future__ import annotations

import pytest

from bot.turn.service import AnswerService
from graph.context import GraphContext
from storage.db import Database
from storage.embeddings import Embedder
from storage.forms import FormFinder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher

ENGLISH = {
    "Library membership.md": (
        "# Library membership\n\nAnyone who lives or works in the city can join the public "
        "library. Bring an identity card to any branch and the card is issued the same day.\n"
    ),
    "Library fines.md": (
        "# Library fines\n\nBooks returned late are charged 10 dollars per day for each item. "
        "Lost books are charged at their full replacement price.\n"
    ),
    "Library opening hours.md": (
        "# Library opening hours\n\nThe central library opens from 9:00 to 21:00 every day "
        "except public holidays. Branch libraries close at 18:00.\n"
    ),
    "Library events.md": (
        "# Library events\n\nThe library holds story time for children on Saturday mornings "
        "and a book club for adults once a month.\n"
    ),
}
CHINESE = {
    "垃圾收集.md": ("# 垃圾收集\n\n一般垃圾每週一、三、五早上七點前收集，請放在指定的垃圾桶內。\n"),
    "資源回收.md": ("# 資源回收\n\n紙類、塑膠瓶和鋁罐每週二收集。回收物必須清洗乾淨並壓扁。\n"),
    "大型家具清運.md": (
        "# 大型家具清運\n\n舊沙發、床墊等大型家具須事先預約清運，每件收費新臺幣三百元。\n"
    ),
    "廚餘處理.md": ("# 廚餘處理\n\n廚餘請與一般垃圾分開，倒入社區的廚餘桶，每天晚上清運。\n"),
    "垃圾袋.md": (
        "# 專用垃圾袋\n\n一般垃圾必須使用專用垃圾袋，每個大袋售價新臺幣十元，可在便利商店購買。\n"
    ),
}


async def _service(
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
    docs: dict[str, str],
) -> AnswerService:
    for name, body in docs.items():
        assert (await ingestion.ingest_bytes(name, body.encode())).status == "added"
    context = GraphContext(searcher=searcher, forms=FormFinder(db), embedder=embedder.model)
    return AnswerService(db, context)


@pytest.mark.parametrize(
    "question", ["圖書館逾期還書每天罰多少錢？", "图书馆逾期还书每天罚多少钱？"]
)
async def test_a_chinese_question_is_answered_from_the_english_page_that_answers(
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
    question: str,
) -> None:
    service = await _service(db, ingestion, searcher, embedder, ENGLISH)
    result = await service.ask(question)
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert [c["document"] for c in result.citations] == ["Library fines"]
    assert "Books returned late are charged 10 dollars per day for each item." in result.answer


async def test_an_english_question_is_answered_from_the_chinese_page_that_answers(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    service = await _service(db, ingestion, searcher, embedder, CHINESE)
    # each page's neighbours are about rubbish too, and two of them about what it costs
    for question, page, quoted in (
        (
            "How much does it cost to have an old sofa taken away?",
            "大型家具清運",
            "每件收費新臺幣三百元",
        ),
        ("How much is a bag for general waste?", "垃圾袋", "每個大袋售價新臺幣十元"),
        ("When is kitchen waste collected?", "廚餘處理", "每天晚上清運"),
    ):
        result = await service.ask(question)
        assert result.outcome == "answered" and result.llm_calls == 0, (question, result.answer)
        assert [c["document"] for c in result.citations] == [page], question
        assert quoted in result.answer, question


async def test_with_the_page_that_answers_gone_its_neighbours_do_not_answer(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    others = {k: v for k, v in ENGLISH.items() if k != "Library fines.md"}
    service = await _service(db, ingestion, searcher, embedder, others)
    result = await service.ask("圖書館逾期還書每天罰多少錢？")
    assert result.outcome == "refused" and result.citations == [], result.answer
