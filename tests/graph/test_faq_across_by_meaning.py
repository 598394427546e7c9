"""An FAQ page in Chinese asked in colloquial English, without a model (real Postgres, the
local embedder): an entry whose question clearly leads every other near the question
answers by meaning, as one in the question's language does; with it gone, the question
is refused."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

import graph.entry_across as entry_across
from bot.turn.service import AnswerService
from graph.entry_question import answers_by_meaning
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import answer_service, faq_page

# a bank's deposits page (Simplified Chinese), one entry asked in English words it
# shares with none of them
RATES = ("定期存款的利率是多少？", "一年期定期存款年利率1.45%，三年期1.95%，五年期2.0%。")
EARLY = (
    "定期存款可以提前取出吗？",
    "可以，提前支取部分按活期利率0.2%计息，其余部分仍按原定期利率计息。",
)
INSURED = (
    "存款有保险保障吗？",
    "本行已参加存款保险，同一存款人在本行所有存款账户的本金和利息合计50万元以内全额赔付。",
)
ACCOUNT = ("怎样开立储蓄账户？", "本人携带身份证到任一网点办理，或在手机银行开立电子账户。")
CASH = (
    "大额取现需要预约吗？",
    "单笔取现5万元以上需提前一天通过电话或手机银行预约，并携带本人身份证到预约网点办理。",
)
# one of bench/data's hand-written asks for this entry
ASKED = "is my money safe if the bank goes bust"

Page = Callable[[list[tuple[str, str]]], Awaitable[AnswerService]]


@pytest.fixture
def deposits(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> Page:
    """The deposits page with the given entries ingested, and a no-model service over it."""

    async def build(entries: list[tuple[str, str]]) -> AnswerService:
        page = {"存款.txt": faq_page(entries)}
        return await answer_service(page, db, ingestion, searcher, embedder)

    return build


async def test_a_colloquial_english_question_is_answered_from_the_chinese_entry_it_asks(
    deposits: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = await deposits([RATES, EARLY, INSURED, ACCOUNT, CASH])
    result = await service.ask(ASKED)
    assert result.outcome == "answered" and result.llm_calls == 0, result.answer
    assert "50万元" in result.answer
    assert all(a not in result.answer for _, a in (RATES, EARLY, ACCOUNT, CASH))
    assert [c["document"] for c in result.citations] == ["存款"]
    # the test of a translated question (graph.cross_entries: an absolute score) refuses
    # it: without answering by the lead it was refused
    monkeypatch.setattr(entry_across, "CROSS_MEANING_LEAD", 10.0)
    assert (await service.ask(ASKED)).outcome == "refused"


async def test_with_its_entry_gone_no_sibling_answers_it(deposits: Page) -> None:
    service = await deposits([RATES, EARLY, ACCOUNT, CASH])
    result = await service.ask(ASKED)
    assert result.outcome == "refused", result.answer
    assert result.citations == []


async def test_an_entry_with_no_other_to_lead_answers_nothing_by_meaning(deposits: Page) -> None:
    # the page's only entry is the one asked, and leads no one: a collection's only entry
    # must not answer every question near it
    service = await deposits([INSURED])
    result = await service.ask(ASKED)
    assert result.outcome == "refused", result.answer


async def test_asked_whether_something_is_free_an_entry_without_a_price_answers_nothing(
    deposits: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the account-opening entry leads the others for "is a savings account free" but says
    # nothing of a fee: another question's answer
    service = await deposits([RATES, EARLY, INSURED, ACCOUNT, CASH])
    result = await service.ask("is a savings account free")
    assert result.outcome == "refused", result.answer
    # read as no price asked, the same entry was quoted by its lead
    monkeypatch.setattr(entry_across, "asks_if_free", lambda question: False)
    result = await service.ask("is a savings account free")
    assert ACCOUNT[1] in result.answer, result.answer
    assert any(step.endswith(":by_meaning=1") for step in result.decision_path)


def entry(**figures: float | bool) -> dict[str, object]:
    """A cross-language FAQ entry as a turn's candidate, with its judged figures."""
    return {"question": "存款有保险保障吗？", "cross_language": True, **figures}


@pytest.mark.parametrize(
    ("figures", "answers"),
    [
        # leads the collection's nearest other entry and the turn's by the lead
        ({"question_cosine": 0.45, "question_score": 0.6, "rival_score": 0.4}, True),
        # too close to another entry near the question
        ({"question_cosine": 0.45, "question_score": 0.6, "rival_score": 0.48}, False),
        (
            {
                "question_cosine": 0.45,
                "question_score": 0.6,
                "rival_score": 0.4,
                "question_lead": 0.05,
            },
            False,
        ),
        # a price asked of an entry whose answer holds none
        (
            {
                "question_cosine": 0.45,
                "question_score": 0.6,
                "rival_score": 0.4,
                "kind_held": False,
            },
            False,
        ),
        # far from the question whatever the others
        ({"question_cosine": 0.25, "question_score": 0.4, "rival_score": 0.1}, False),
        # the collection was not compared: no rival, never by meaning alone
        ({"question_cosine": 0.7, "question_score": 0.9}, False),
        # a phrase under the cosine a question naming only the topic reaches
        (
            {
                "question_cosine": 0.5,
                "question_score": 0.8,
                "rival_score": 0.4,
                "asked_phrase": True,
            },
            False,
        ),
        (
            {
                "question_cosine": 0.6,
                "question_score": 0.8,
                "rival_score": 0.4,
                "asked_phrase": True,
            },
            True,
        ),
        (
            {
                "question_cosine": 0.6,
                "question_score": 0.8,
                "rival_score": 0.4,
                "asked_phrase": True,
                "question_words_held": False,
            },
            False,
        ),
    ],
)
def test_an_entry_in_another_language_answers_by_meaning_only_when_it_leads(
    figures: dict[str, float | bool], answers: bool
) -> None:
    assert answers_by_meaning(entry(**figures)) is answers
