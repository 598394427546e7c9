"""A few short documents of a kind the project was not tuned on, asked as residents ask.

Real Postgres and the local embedder, no model: a community garden's page (a list of
rules, a plot's rent), a Simplified-Chinese transit-card FAQ and a Traditional-Chinese
page on sorting rubbish (HTML). What a user notices: a rule asked about is quoted
alone, the rules asked for are quoted whole, a price is found under another word than
the question's ("rent" for "cost", 罰鍰 for 罚多少钱), and "can I pay with my phone"
is no price question.
"""

from __future__ import annotations

import pytest

from bot.turn.service import AnswerService
from graph.extractive import whole_list
from graph.sentence_similarity import Candidate
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from storage.support import price_held
from tests.support.passport_faq import answer_service
from textkit.answer_type import answer_kinds, holds, price_words

GARDEN = """# Riverside Community Garden

The Riverside Community Garden is run by volunteers on land leased from the council.

## Plots

A standard plot measures 3 by 5 metres. The yearly rent is 40 euros, or 20 euros for
students and pensioners. Plots are allocated in March from the waiting list.

## Rules

- No pesticides or chemical fertilisers.
- Dogs must be kept on a lead.
- Bonfires are not allowed at any time.
- Water from the taps is for watering only and is not drinkable.
"""
TRANSIT = """# 公交卡常见问题

## 公交卡在哪里办理？
可以在各地铁站客服中心或指定便利店办理，需缴纳押金二十元。

## 学生卡有什么优惠？
全日制学生凭学生证办理学生卡，乘车享受五折优惠。

## 卡丢了怎么办？
记名卡可凭身份证到客服中心挂失，挂失后七个工作日内可补办新卡，卡内余额转入新卡。不记名卡无法挂失。

## 怎么退卡？
到地铁站客服中心办理退卡，退还押金和卡内余额，使用不满一年的收取五元手续费。

## 可以用手机支付吗？
可以，所有公交和地铁都支持手机扫码乘车。
"""
SORTING = """<html><head><title>垃圾分類說明</title></head><body>
<h1>垃圾分類說明</h1>
<p>本市自二〇二四年起實施強制垃圾分類，分為一般垃圾、資源回收和廚餘三類。</p>
<h2>資源回收</h2>
<p>紙類、塑膠瓶、鐵鋁罐及玻璃瓶請清洗後放入資源回收袋。每週二、四、六回收。</p>
<h2>罰則</h2>
<p>未依規定分類者，第一次勸導，第二次起處新臺幣一千二百元以上六千元以下罰鍰。</p>
</body></html>
"""
LIBRARY = """# Central Library services

## Borrowing
Adults may borrow up to 15 items at a time for three weeks. Children's cards allow 10 items.

## Late returns
There are no late fees for children's items. Adult items cost 20 cents per day late, up to a
maximum of 5 euros per item.

## Printing and copying
Black-and-white prints cost 10 cents a page; colour prints cost 50 cents a page.

## Study rooms
Study rooms for up to six people can be booked for two hours a day. There are no booking fees.
"""
RULES = [
    "No pesticides or chemical fertilisers.",
    "Dogs must be kept on a lead.",
    "Bonfires are not allowed at any time.",
    "Water from the taps is for watering only and is not drinkable.",
]


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> AnswerService:
    files = {
        "community-garden.md": GARDEN,
        "公交卡常见问题.md": TRANSIT,
        "垃圾分類.html": SORTING,
        "library-services.md": LIBRARY,
    }
    return await answer_service(files, db, ingestion, searcher, embedder)


def quoted(answer: str) -> list[str]:
    return [line[2:].rsplit(" [", 1)[0] for line in answer.splitlines() if line.startswith("- ")]


async def test_a_rule_asked_about_is_quoted_without_its_sibling_rules(
    service: AnswerService,
) -> None:
    result = await service.ask("Can I bring my dog to the garden?")
    assert result.outcome == "answered", result.decision_path
    assert quoted(result.answer) == ["Dogs must be kept on a lead."]


async def test_the_rules_asked_for_are_quoted_whole_in_their_order(service: AnswerService) -> None:
    result = await service.ask("What are the garden rules?")
    assert result.outcome == "answered", result.decision_path
    assert quoted(result.answer) == RULES


@pytest.mark.parametrize("asked", ["How much does a plot cost", "How much does a plot cost?"])
async def test_a_price_under_another_word_answers_what_a_plot_costs(
    service: AnswerService, asked: str
) -> None:
    result = await service.ask(asked)
    assert result.outcome == "answered", result.decision_path
    assert any("40 euros" in s for s in quoted(result.answer))


async def test_each_part_finds_its_answer_under_other_words(service: AnswerService) -> None:
    result = await service.ask("How much does a plot cost and when are plots allocated?")
    assert result.outcome == "answered", result.decision_path
    assert "40 euros" in result.answer and "allocated in March" in result.answer
    assert "don't say" not in result.answer


async def test_a_fine_asked_in_simplified_is_found_on_a_traditional_page(
    service: AnswerService,
) -> None:
    result = await service.ask("垃圾不分类要罚多少钱？")
    assert result.outcome == "answered", result.decision_path
    assert "一千二百元" in result.answer  # in the asker's script: 罚锾
    assert [c["document"] for c in result.citations] == ["垃圾分類"]


async def test_paying_with_a_phone_is_answered_not_read_as_a_price_question(
    service: AnswerService,
) -> None:
    result = await service.ask("Can I pay with my phone on the metro?")
    assert result.outcome == "answered", result.decision_path
    assert "手机扫码乘车" in result.answer
    assert "response_synth:kind_not_found" not in result.decision_path


@pytest.mark.parametrize(
    ("question", "price"),
    [
        ("Can I pay with my phone on the metro?", False),
        ("Can I pay by card?", False),
        ("Can it be paid in cash?", False),
        ("How much do I pay for parking?", True),
        ("What is the fee?", True),
        ("How much do I pay by card?", True),
        ("What do I have to pay at registration?", True),
        ("How much do I pay within 30 days?", True),
        ("Is there a fee to pay by card?", True),
        ("Should I pay in cash?", False),
        ("So, can I pay for parking with my phone?", False),
        ("Do I have to pay for parking?", True),
        ("垃圾不分类要罚多少钱？", True),
    ],
)
def test_pay_asks_a_price_only_when_it_asks_how_much(question: str, price: bool) -> None:
    assert ("price" in answer_kinds(question)) is price


def test_the_words_naming_the_price_asked() -> None:
    assert price_words("How much does a plot cost", ["plot", "cost"]) == {"cost"}
    assert price_words("垃圾不分类要罚多少钱？", ["垃圾", "分类", "钱"]) == {"钱"}
    # no price asked: no word stands for one
    assert price_words("When are plots allocated?", ["plots", "allocated"]) == frozenset()


async def test_a_lost_card_asked_in_english_finds_the_chinese_entry_on_losing_it(
    service: AnswerService,
) -> None:
    # "lost" is read as "lose" through the dictionary (丢: to lose), so the entry on a
    # lost card leads the one on returning it (怎么退卡？), which the embedder puts as near
    result = await service.ask("I lost my transit card, what should I do?")
    assert result.outcome == "answered", result.decision_path
    assert "挂失" in result.answer and "退卡" not in result.answer


async def test_a_conversation_keeps_its_script_and_its_follow_ups_their_question(
    service: AnswerService,
) -> None:
    first = await service.ask("How much is a garden plot?", conversation="c1")
    assert first.outcome == "answered"
    # "and for students?" asks the price again: the rent alone, not the plot's size
    again = await service.ask("and for students?", conversation="c1")
    assert quoted(again.answer) == [
        "The yearly rent is 40 euros, or 20 euros for students and pensioners."
    ]
    # "they" leans on the plots asked about
    when = await service.ask("when are they allocated?", conversation="c1")
    assert "allocated in March" in when.answer
    await service.ask("公交卡在哪里办？", conversation="c2")
    # 押金多少？ is written in characters both scripts share: the reply stays Simplified
    deposit = await service.ask("押金多少？", conversation="c2")
    assert deposit.language == "zh-hans"
    assert "将由专人" in deposit.answer or "根据文件内容" in deposit.answer


async def test_a_price_of_another_thing_on_the_page_does_not_answer(
    service: AnswerService,
) -> None:
    # the page names the waiting list and gives a plot's rent: joining it costs nothing said
    result = await service.ask("How much does it cost to join the waiting list?")
    assert "40 euros" not in result.answer
    assert result.outcome == "refused", result.answer


async def test_a_they_question_naming_its_own_things_stands_alone(
    service: AnswerService,
) -> None:
    await service.ask("How much is a garden plot?", conversation="c3")
    result = await service.ask("Do they allow dogs in the garden?", conversation="c3")
    # the rules naming a word of its own ("allowed" too), not the plot's rent
    assert "Dogs must be kept on a lead." in quoted(result.answer)
    assert "No pesticides or chemical fertilisers." not in quoted(result.answer)
    assert "40 euros" not in result.answer


def test_items_of_two_lists_or_of_a_long_list_stay_as_picked() -> None:
    def candidates(lines: list[str]) -> list[Candidate]:
        return [(0, i, line, frozenset(), "") for i, line in enumerate(lines)]

    two = candidates(["Bring:", "- a towel", "- a cap", "Not allowed:", "- glass", "- food"])
    assert whole_list([(0, 1), (0, 4)], two) == [(0, 1), (0, 4)]
    assert whole_list([(0, 1), (0, 2)], two) == [(0, 1), (0, 2)]
    one = candidates(["Rules:", "- a", "- b", "- c", "- d"])
    assert whole_list([(0, 2), (0, 3)], one) == [(0, 1), (0, 2), (0, 3), (0, 4)]
    long = candidates(["Steps:", *[f"- step {i}" for i in range(20)]])
    assert whole_list([(0, 15), (0, 17)], long) == [(0, 15), (0, 17)]
    assert whole_list([(0, 4), (0, 1)], two) == [(0, 1), (0, 4)]  # in any order


@pytest.mark.parametrize(
    ("sentence", "heading", "terms", "held"),
    [
        ("The yearly rent is 40 euros.", "Plots", ["plot"], True),
        ("The yearly rent is 40 euros.", "Plots", ["waiting", "list"], False),
        ("Plots are allocated from the waiting list.", "Plots", ["plot"], False),  # no price
        # a one-character Chinese word names nothing: 不 of 不分类 in a fee sentence
        ("使用不满一年的收取五元手续费。", "怎么退卡？", ["垃圾", "不", "分类"], False),
        ("未依規定分類者，處新臺幣一千二百元罰鍰。", "罰則", ["垃圾", "分类"], True),
    ],
)
def test_a_price_is_of_what_its_sentence_or_heading_names(
    sentence: str, heading: str, terms: list[str], held: bool
) -> None:
    assert price_held(sentence, heading, terms) is held


async def test_what_happens_if_asks_no_word_the_answer_must_hold(service: AnswerService) -> None:
    result = await service.ask("What happens if I return a book late?")
    assert result.outcome == "answered", result.decision_path
    assert "20 cents per day late" in result.answer


async def test_no_fee_at_all_is_the_price_asked(service: AnswerService) -> None:
    result = await service.ask("How much are the booking fees for a study room?")
    assert result.outcome == "answered", result.decision_path
    assert "There are no booking fees." in result.answer


@pytest.mark.parametrize(
    ("sentence", "price"),
    [
        ("There are no late fees for children's items.", True),
        ("There are no booking fees.", True),
        ("No hidden costs.", True),
        ("No charges were filed against the captain.", False),
        ("There is no cost estimate yet.", False),
        ("There is no fee waiver for replacing a lost card.", False),
    ],
)
def test_no_fee_is_a_price_only_where_the_fee_ends_its_phrase(sentence: str, price: bool) -> None:
    assert holds(sentence, "price") is price


BANK = """# Account FAQ

## How do I open an account?
Bring your passport or ID card to any branch; the account is ready the same day.

## How is interest paid?
Interest is added to your savings account once a year.

## Can I close my account online?
Yes, in online banking under Settings, once the balance is zero.
"""


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How do I open an account?", "Bring your passport"),  # no opening hours asked
        ("How is interest paid?", "once a year"),  # the way, not a price
        ("Can I close my account online?", "online banking"),
    ],
)
async def test_an_entry_asked_as_written_is_not_refused_for_a_kind_it_does_not_ask(
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    embedder: Embedder,
    question: str,
    said: str,
) -> None:
    service = await answer_service({"bank.md": BANK}, db, ingestion, searcher, embedder)
    result = await service.ask(question)
    assert result.outcome == "answered", result.decision_path
    assert said in result.answer
