"""On a small FAQ, a question's shape must not carry another entry: everyday questions.

Real Postgres and the local embedder, no model. Five entries about rubbish
collection: "Can my kids swim without me?" comes nearest "Can I put batteries
in the bin?" (the one entry asking "Can I …?") and leads the others by more
than graph.entry_question.MEANING_LEAD, so it was answered with "No. Batteries
can start fires in the truck." Everyday questions about other things
(graph.everyday_questions) are nearer to it: refused, or answered from the
document that does say.
"""

from __future__ import annotations

from typing import Any

import pytest

from graph.cross_entries import add_entry_cosines
from graph.entry_question import MEANING_LEAD, RIVALS, answers_by_meaning
from graph.everyday_questions import (
    MARGIN,
    SAME_THING,
    add_everyday_cosines,
    everyday_questions,
    near_as_everyday,
)
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import answer_service, faq_page
from textkit.scripts import to_simplified

COLLECTED = ("When is my rubbish collected?", "General waste is collected every Tuesday morning.")
BLUE_BIN = (
    "What goes in the blue recycling bin?",
    "Paper, cardboard, glass bottles, tin cans and plastic bottles. Plastic bags are not accepted.",
)
SOFA = (
    "How do I get rid of a sofa or a mattress?",
    "Book a bulky item collection online. Each collection costs NT$300 for up to three items.",
)
BATTERIES = (
    "Can I put batteries in the bin?",
    "No. Batteries can start fires in the truck. Take them to any convenience store.",
)
MISSED = (
    "What happens if I miss a collection?",
    "Keep the bin until the next collection day. We do not make extra trips.",
)
RUBBISH_FAQ = {"rubbish-faq.txt": faq_page([COLLECTED, BLUE_BIN, SOFA, BATTERIES, MISSED])}
POOL = (
    "# 市立游泳池使用須知\n\n## 開放時間\n週二至週日上午六點至晚上十點開放，每週一休館清潔。\n\n"
    "## 注意事項\n入池前請先淋浴，並須戴泳帽。孩童未滿一百二十公分須由成人陪同。\n"
)


CLINIC = """# 仁愛診所常見問題

## 看診時間是什麼時候？
週一至週五上午九點至十二點、下午兩點至五點看診。

## 需要預約嗎？
建議先以電話預約，現場掛號需等候。

## 小孩可以打流感疫苗嗎？
可以，六個月以上的孩童即可接種流感疫苗。

## 停車方便嗎？
診所後方有十個免費停車位。

## 掛號費多少錢？
掛號費為新臺幣一百五十元。
"""


@pytest.mark.parametrize("asked", ["Can my kids swim without me?", "Can I bring my cat along?"])
async def test_a_question_about_another_thing_is_not_answered_by_the_entry_of_its_shape(
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
    asked: str,
) -> None:
    service = await answer_service(RUBBISH_FAQ, db, ingestion, searcher, embedder)
    result = await service.ask(asked)
    assert result.outcome == "refused", result.answer
    assert "Batteries" not in result.answer
    assert result.citations == []


async def test_the_entry_asked_in_other_words_still_answers(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    service = await answer_service(RUBBISH_FAQ, db, ingestion, searcher, embedder)
    result = await service.ask("what do I do with dead batteries")
    assert result.outcome == "answered", result.decision_path
    assert "convenience store" in result.answer
    assert [c["document"] for c in result.citations] == ["rubbish-faq"]


async def test_the_document_that_says_answers_instead_of_the_entry_of_its_shape(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    files = {**RUBBISH_FAQ, "游泳池.md": POOL}
    service = await answer_service(files, db, ingestion, searcher, embedder)
    result = await service.ask("Can my kids swim without me?")
    assert result.outcome == "answered", result.decision_path
    assert "須由成人陪同" in result.answer
    assert [c["document"] for c in result.citations] == ["游泳池"]


async def test_the_shape_alone_leads_the_other_entries_and_everyday_questions_come_nearer(
    embedder: Embedder,
) -> None:
    # what the refusal above rests on: without the everyday questions the battery entry
    # would answer by meaning (it leads every other entry by more than the bar)
    entries: list[dict[str, Any]] = [
        {"document": "rubbish-faq", "question": q, "language": "en"}
        for q, _ in (COLLECTED, BLUE_BIN, SOFA, BATTERIES, MISSED)
    ]
    asked = "Can my kids swim without me?"
    await add_entry_cosines(embedder.model, asked, entries)
    battery, *others = sorted(entries, key=lambda e: -float(e["question_cosine"]))
    assert battery["question"] == BATTERIES[0]
    lead = float(battery["question_cosine"]) - max(float(o["question_cosine"]) for o in others)
    assert lead >= MEANING_LEAD
    battery["rival_cosine"] = battery["question_cosine"] - lead
    assert answers_by_meaning(battery)
    await add_everyday_cosines(embedder.model, asked, [battery])
    assert battery["everyday_cosine"] > battery["question_cosine"] + MARGIN
    battery["rival_entries"] = len(others)
    assert not answers_by_meaning(battery)


async def test_an_everyday_question_about_the_entrys_own_thing_is_no_rival(
    embedder: Embedder,
) -> None:
    # "Can I bring my dog?" is an everyday question; an entry asking it is not its rival
    entry: dict[str, Any] = {
        "document": "pets",
        "question": "Can I bring my dog?",
        "language": "en",
    }
    asked = "Can I bring my dog?"
    await add_entry_cosines(embedder.model, asked, [entry])
    await add_everyday_cosines(embedder.model, asked, [entry])
    assert entry["everyday_cosine"] < 0.99
    assert near_as_everyday(entry)


def test_near_as_everyday_compares_the_two_cosines_within_the_margin() -> None:
    assert near_as_everyday({"question_cosine": 0.5})  # not compared
    assert near_as_everyday({"question_cosine": 0.5, "everyday_cosine": 0.5 + MARGIN})
    assert not near_as_everyday({"question_cosine": 0.5, "everyday_cosine": 0.51 + MARGIN})


def test_everyday_questions_stand_in_only_where_few_entries_were_there_to_lead() -> None:
    led = {"document": "faq", "question": "q?", "question_cosine": 0.45, "rival_cosine": 0.2}
    nearer_everyday = {**led, "everyday_cosine": 0.45 + MARGIN + 0.1}
    assert not answers_by_meaning({**nearer_everyday, "rival_entries": 4})
    assert not answers_by_meaning({**nearer_everyday, "rival_entries": RIVALS - 2})
    # a collection that filled the rival search: its own entries are the test
    assert answers_by_meaning({**nearer_everyday, "rival_entries": RIVALS - 1})
    assert answers_by_meaning({**led, "rival_entries": 4})


def test_the_everyday_questions_come_in_both_language_families() -> None:
    questions = everyday_questions()
    # Chinese ones once each in Simplified, as the embedder compares them
    assert len(questions["en"]) >= 100 and len(questions["zh"]) >= 80
    assert all(q == to_simplified(q) for q in questions["zh"])
    assert 0 < SAME_THING < 1


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("幾歲可以打流感疫苗？", "六個月以上"),  # the vaccine entry, in other words
        ("剪頭髮要多少錢？", None),  # a haircut's price: the fee entry's shape only
        ("How much is a haircut?", None),
    ],
)
async def test_a_small_chinese_faq_answers_its_things_and_not_another_things_price(
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
    asked: str,
    answered: str | None,
) -> None:
    service = await answer_service({"診所常見問題.md": CLINIC}, db, ingestion, searcher, embedder)
    result = await service.ask(asked)
    if answered is None:
        assert result.outcome == "refused", result.answer
        assert "一百五十元" not in result.answer
    else:
        assert result.outcome == "answered", result.decision_path
        assert answered in result.answer
