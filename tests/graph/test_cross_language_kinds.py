"""Cross-language extractive answers (no model) quote first the sentence holding the kind
of answer asked, as same-language ones do (graph.cross_kinds, graph.answer_order): a price
for "how much does it cost", a count for "how many", a duration for "how long", though a
sentence restating the topic is closer in meaning (real Postgres, the local embedder)."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot
from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.extractive import _prepare, pick_sentences
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import sample_service
from textkit.answer_type import holds

SAMPLES = Path(bot.__file__).parent / "sample" / "docs"
DOCS = {
    "游泳池.md": (
        "# 市立游泳池\n\n本市共有 12 座市立游泳池，市立游泳池全年開放給所有市民使用。"
        "成人每次入場需繳納新臺幣 60 元。每次入場最多可停留三小時。每位會員每次可帶兩位訪客。\n"
    ),
    "Swimming pools.md": (
        "# Swimming pools\n\nThe city has 12 public swimming pools, and the public swimming "
        "pools are open to all residents all year round. Adults pay 3 dollars per visit. "
        "Each visit may last up to three hours.\n"
    ),
}


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> AnswerService:
    return await sample_service(db, ingestion, searcher, embedder)


def first_item(answer: str) -> str:
    """The answer's first quoted sentence, without its `- ` and citation mark."""
    items = [line[2:] for line in answer.splitlines() if line.startswith("- ")]
    return items[0].rsplit(" [", 1)[0]


async def test_an_english_price_question_over_a_chinese_page_quotes_a_price_first(
    service: AnswerService,
) -> None:
    result = await service.ask("How much does a parking permit cost?")
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert [c["document"] for c in result.citations] == ["停車許可證"]
    first = first_item(result.answer)
    assert holds(first, "price"), result.answer
    # "at most two per household" is about the permit, but names no price
    assert "每戶最多申請兩張。" not in result.answer


@pytest.mark.parametrize(
    ("document", "question", "kind"),
    [
        ("游泳池.md", "How much does it cost to swim at a city swimming pool?", "price"),
        ("游泳池.md", "How long can I stay at a city swimming pool?", "duration"),
        ("游泳池.md", "How many visitors can a swimming pool member bring?", "count"),
        ("Swimming pools.md", "市立游泳池每次要多少钱？", "price"),
        ("Swimming pools.md", "在市立游泳池每次可以待多久？", "duration"),
    ],
)
async def test_the_sentence_holding_the_kind_asked_comes_first_across_languages(
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
    document: str,
    question: str,
    kind: str,
) -> None:
    assert (await ingestion.ingest_bytes(document, DOCS[document].encode())).status == "added"
    service = AnswerService(db, GraphContext(searcher=searcher, embedder=embedder.model))
    result = await service.ask(question)
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert holds(first_item(result.answer), kind), result.answer
    # the sentence restating the topic holds no answer of the kind: it is left out
    assert "12" not in result.answer, result.answer


@pytest.mark.parametrize(
    ("question", "text", "answer"),
    [
        (
            "How many visitors can a member bring?",
            "本市共有十二座游泳池，全年開放。每位會員每次可帶兩位訪客。",
            "每位會員每次可帶兩位訪客。",
        ),
        (
            "How long can I stay at the pool?",
            "本市共有十二座游泳池，全年開放。每次入場最多可停留三小時。",
            "每次入場最多可停留三小時。",
        ),
        (
            "游泳池每次要多少钱？",
            "The city has 12 public swimming pools. Adults pay 3 dollars per visit.",
            "Adults pay 3 dollars per visit.",
        ),
    ],
)
def test_a_sentence_holding_the_kind_asked_is_quoted_though_another_is_closer(
    question: str, text: str, answer: str
) -> None:
    # scores as graph.cross_sentences gives them when the topic's sentence is far closer
    # in meaning: beyond the margin a sentence of another language is quoted within
    evidence = [
        {"document": "Pools", "text": text, "cross_language": True, "graded": "pass"},
    ]
    wanted, candidates = _prepare(question, evidence)
    topic_sentence, holding = (c[2] for c in candidates)
    assert holding == answer
    similarity = {topic_sentence: 0.8, holding: 0.6}
    picked = pick_sentences(wanted, evidence, candidates, "", similarity, question)
    assert [s for s, _ in picked] == [answer]


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("办公时间是什么时候？", "The City Service Centre at 1 Harbour Road is open Monday"),
        ("辦公時間？", "The City Service Centre at 1 Harbour Road is open Monday"),
        ("服务中心星期六几点开门？", "The City Service Centre at 1 Harbour Road is open Monday"),
        ("服务中心星期天开吗？", "It is closed on Sundays and public holidays."),
    ],
)
async def test_the_hours_asked_across_languages_lead_with_the_hours_or_the_day_named(
    service: AnswerService, question: str, first: str
) -> None:
    # "It is closed on Sundays" is closer in meaning to 办公时间 than the sentence giving
    # the hours, and names a day too: it says when the centre is not open
    result = await service.ask(question)
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert [c["document"] for c in result.citations] == ["office-hours"]
    assert first_item(result.answer).startswith(first), result.answer


def test_a_sentence_stating_the_hours_is_quoted_though_one_naming_days_is_closer() -> None:
    evidence = [
        {
            "document": "Opening hours",
            "text": "It is closed on Sundays. The office is open Mon-Fri 9:00 to 17:00.",
            "cross_language": True,
            "graded": "pass",
        }
    ]
    question = "办公时间是几点？"
    wanted, candidates = _prepare(question, evidence)
    days, hours = (c[2] for c in candidates)
    picked = pick_sentences(wanted, evidence, candidates, "", {days: 0.8, hours: 0.5}, question)
    assert [s for s, _ in picked] == [hours, days]


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("How long is a parking permit valid?", "每張許可證每年收費新臺幣 1,200 元，有效期一年"),
        ("停车许可证有效期多久？", "每张许可证每年收费新台币 1,200 元，有效期一年"),
        ("How long does it take to get a parking permit?", "申請後約七個工作天核發。"),
        ("停車許可證多久可以拿到？", "申請後約七個工作天核發。"),
        (
            "How many years is a parking permit valid?",
            "每張許可證每年收費新臺幣 1,200 元，有效期一年",
        ),
        # an expired permit renewed: how long renewing takes, not how long it is valid
        ("How long does it take to renew an expired parking permit?", "申請後約七個工作天核發。"),
    ],
)
async def test_how_long_a_permit_is_valid_is_not_how_long_it_takes(
    service: AnswerService, question: str, first: str
) -> None:
    # the page states two durations: the validity beside the fee, and the issuing time
    result = await service.ask(question)
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert first_item(result.answer).startswith(first), result.answer
    assert len([line for line in result.answer.splitlines() if line.startswith("- ")]) == 1


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("How long is the card valid?", "會員卡有效期十二個月。"),
        ("How many months is the card valid?", "會員卡有效期十二個月。"),
    ],
)
def test_the_duration_asked_is_quoted_though_the_other_one_is_closer(
    question: str, answer: str
) -> None:
    text = "申請後三個工作天發卡。會員卡有效期十二個月。"
    evidence = [{"document": "Card", "text": text, "cross_language": True, "graded": "pass"}]
    wanted, candidates = _prepare(question, evidence)
    other = next(c[2] for c in candidates if c[2] != answer)
    similarity = {other: 0.8, answer: 0.5}  # beyond the margin of the closer one
    picked = pick_sentences(wanted, evidence, candidates, "", similarity, question)
    assert [s for s, _ in picked][:1] == [answer]


@pytest.mark.parametrize(
    "question",
    [
        "When is the City Service Centre closed?",
        "Is the City Service Centre open on public holidays?",
    ],
)
async def test_the_days_closed_lead_when_closing_or_a_holiday_is_asked(
    service: AnswerService, question: str
) -> None:
    result = await service.ask(question)
    assert result.outcome == "answered", result.answer
    assert first_item(result.answer) == "It is closed on Sundays and public holidays.", (
        result.answer
    )
