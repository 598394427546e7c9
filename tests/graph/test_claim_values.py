"""A model's claim that is a bare value ("1996.", "1996年") is shown when it restates the one
figure its sentence states, and never with another figure, another name or the other
polarity.

Through the whole graph: the real langchain-openai client talks to the fake server, the
passages come from embedded Postgres, the judge uses the local multilingual embedder as
the runtime does (by which a bare value is far in meaning from its sentence).
"""

from __future__ import annotations

import json

import pytest

from bot.turn.service import AnswerService
from graph.claim_judge import ClaimJudge
from graph.claim_values import other_words, restates_value
from storage.embeddings import Embedder
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.model_answers import OverDocument, resting_on

LIBRARY = (
    "# Central library\n\nThe central library lends books to every resident of the city. "
    "The central library opened in 1996. "
    "The reading room was designed by the architect Anna Berg.\n"
)
OPENED = "The central library opened in 1996."
QUESTION = "When did the central library open?"
PLAN = Reply(
    json.dumps(
        {
            "task_type": "simple_faq",
            "should_retrieve": True,
            "query": "central library opened",
            "alternates": [],
        }
    )
)


@pytest.fixture
async def service(over_document: OverDocument) -> AnswerService:
    return await over_document("library.md", LIBRARY)


@pytest.mark.parametrize("claim", ["1996.", "In 1996.", "1996年"])
async def test_a_bare_value_restating_its_sentence_is_shown(
    service: AnswerService, fake: FakeOpenAI, claim: str
) -> None:
    fake.script = [PLAN, resting_on("1996", claim)]
    result = await service.ask(QUESTION)
    assert result.outcome == "answered", result.decision_path
    assert "response_synth:llm" in result.decision_path
    assert not any("claim_dropped" in step for step in result.decision_path)
    assert result.answer.startswith(claim.rstrip(".。")) and "[1]" in result.answer


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        ("1997.", "number"),  # another figure
        ("In 1996, Oslo.", "other_entity"),  # a name the sentence does not give
        ("Not in 1996.", "polarity"),  # the other polarity
    ],
)
async def test_a_bare_value_with_another_fact_is_never_shown(
    service: AnswerService, fake: FakeOpenAI, claim: str, reason: str
) -> None:
    fake.script = [PLAN, resting_on("1996", claim)]
    result = await service.ask(QUESTION)
    assert "response_synth:llm" not in result.decision_path
    assert claim.rstrip(".") not in result.answer
    assert f"response_synth:claim_dropped:1:{reason}" in result.decision_path


def test_a_bare_value_restates_only_a_sentence_stating_that_one_figure() -> None:
    assert restates_value("1996年", "圖書館於1996年成立。")
    assert restates_value("In 1996.", OPENED)
    # translated: the sentence's unit in the claim's own words
    assert restates_value("30 days", "护照到期前30天可以续办。")
    assert not restates_value("30 years", "护照到期前30天可以续办。")
    # two figures in the sentence: it cannot tell which one answers
    assert not restates_value("1996", "The library opened in 1990 and was enlarged in 1996.")
    # another figure, a word of its own, or no figure at all: no bare value of this sentence
    assert not restates_value("1997", OPENED)
    assert not restates_value("1996年關閉", "圖書館於1996年成立。")
    assert not restates_value("Anna Berg", "The reading room was designed by Anna Berg.")
    assert len(other_words("民國85年")) == 2  # the era's name and the unit


def test_a_bare_value_stands_only_on_the_sentence_its_id_names_or_next_to_it() -> None:
    passage = f"The central library lends books. {OPENED} It closed in 2020."
    judge = ClaimJudge([passage])
    assert judge.judge("1996.", None, None, [(1, 2)]).source == 1
    # the figure is in the sentence next to the one named (a small model's id is often
    # one off), or two sentences away: no sentence it may rest on holds it
    assert judge.judge("2020.", None, None, [(1, 2)]).source == 1
    assert judge.judge("2020.", None, None, [(1, 1)]).source is None


SEASON = (
    "2004-05年賽季，基本保持原有陣容的溜馬隊原本有希望再次衝冠，但2004年11月19日發生了臭名昭著的"
    "「奧本山皇宮事件」，事件使球隊元氣大傷，例行賽結束時僅以44勝38負名列東區第六。"
)


def test_in_a_sentence_of_several_figures_the_clause_of_the_thing_asked_holds_the_value() -> None:
    # a real 1.5B model's answer (DRCD, 2026-11-29): the date is the clause's that names
    # the event asked about; the season and the score are other clauses'
    asked = "「奧本山皇宮事件」於何年發生?"
    assert restates_value("2004年11月19日", SEASON, asked)
    assert not restates_value("44勝", SEASON, asked)  # the score: its clause names no event
    assert not restates_value("2004年11月19日", SEASON, "溜馬隊在哪一年成立?")  # other subject
    assert not restates_value("2004年11月19日", SEASON)  # no question: nothing tells


def test_a_bare_value_is_not_the_clause_naming_the_thing_but_not_what_is_asked_of_it() -> None:
    # the clause of 1996 names the library, the clause of 1990 says "founded": 1996 is
    # no answer to when it was founded, in either language
    enlarged = "The city library was enlarged in 1996, and it was founded in 1990."
    assert not restates_value("1996.", enlarged, "When was the city library founded?")
    assert not restates_value(
        "1996年", "市立圖書館於1996年擴建，原館於1990年成立。", "市立圖書館何時成立？"
    )
    assert restates_value("1996.", enlarged, "When was the city library enlarged?")


def test_a_bare_value_never_stands_by_meaning_on_a_sentence_in_another_language(
    embedder: Embedder,
) -> None:
    # each sentence states 1996 beside 1990, the year asked: the value restates neither,
    # and the looser bar across languages must not take it for the other passage's
    english = "The city library was enlarged in 1996, and it was founded in 1990."
    chinese = "市立圖書館於1996年擴建，原館於1990年成立。"
    shown = {(1, 1), (2, 1)}
    for question, claim, pointed in (
        ("When was the city library founded?", "1996.", (1, 1)),
        ("When was the city library founded?", "1996.", (2, 1)),
        ("市立圖書館何時成立？", "1996年", (2, 1)),
        ("市立圖書館何時成立？", "1996年", (1, 1)),
    ):
        judge = ClaimJudge([english, chinese], embedder.model, shown, question)
        assert judge.judge(claim, None, None, [pointed]).source is None, (question, pointed)


def test_a_claim_whose_id_slipped_to_another_shown_sentence_rests_on_the_one_it_states(
    embedder: Embedder,
) -> None:
    first = "圖書館於1996年開館。館內藏書十二萬冊。"
    second = "閱覽室由建築師安娜設計。停車場有四十個車位。"
    shown = {(1, 1), (1, 2), (2, 1), (2, 2)}
    judge = ClaimJudge([first, second], embedder.model, shown)
    # "2.1" for "1.1": the claim states sentence 1.1's facts and meaning, and no other's
    verdict = judge.judge("The library opened in 1996.", None, None, [(2, 1)])
    assert verdict.source == 1 and verdict.quote == "圖書館於1996年開館。"
    # another figure: no shown sentence fits, and why is the named sentence's
    wrong = judge.judge("The library opened in 1997.", None, None, [(2, 1)])
    assert wrong.source is None and wrong.reason == "number"
