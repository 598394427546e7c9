"""Extractive answers (no model) that answer the question asked about the thing asked
(real Postgres, the local embedder): another thing's price is no answer, a count of
books is not money, a duration question quotes durations, and a heading asked as a
question is never quoted."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot
from bot.turn.service import AnswerService
from graph.answer_sentences import asks, quotable
from graph.cross_language import passage_sentences
from graph.subject import split_question, subject_words
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.graph.test_readable_answers import extractive
from tests.support.passport_faq import answer_service
from textkit.answer_type import answer_kinds

SAMPLES = Path(bot.__file__).parent / "sample" / "docs"


def items(answer: str) -> list[str]:
    """The answer's quoted sentences, without their `- ` and citation marks."""
    return [line[2:].rsplit(" [", 1)[0] for line in answer.splitlines() if line.startswith("- ")]


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> AnswerService:
    files = {p.name: p.read_text() for p in sorted(SAMPLES.iterdir())}
    return await answer_service(files, db, ingestion, searcher, embedder)


async def test_a_thing_with_no_document_is_not_answered_with_anothers_price(
    service: AnswerService,
) -> None:
    # the Chinese parking permit's fee is a price, of another thing
    result = await service.ask("How much does a fishing licence cost?")
    assert result.outcome == "refused", result.answer
    assert "1,200" not in result.answer
    # the permit asked of is still answered, in either language
    for asked in ("How much does a parking permit cost?", "停車許可證多少錢？"):
        result = await service.ask(asked)
        assert result.outcome == "answered", (asked, result.answer)
        assert result.citations[0]["document"] == "停車許可證", (asked, result.citations)


async def test_a_page_naming_the_thing_but_not_the_time_asked_leaves_it_to_one_that_does(
    service: AnswerService,
) -> None:
    # the Chinese centre page names the centre and a hotline, no hour; the English
    # opening-hours page holds them
    for asked in ("市民服务中心星期六几点开门？", "市民服務中心幾點開門？"):
        result = await service.ask(asked)
        assert result.outcome == "answered", (asked, result.answer)
        assert [c["document"] for c in result.citations] == ["office-hours"], result.citations
        assert any("Saturday mornings from 9:00 to 12:00" in s for s in items(result.answer))
        assert "1999" not in result.answer


async def test_a_page_in_another_language_naming_the_thing_by_its_words_is_about_it(
    service: AnswerService,
) -> None:
    # "服務中心" (service centre): the English hours page says "City Service Centre",
    # yet by meaning alone it is nearer "what time … open" than "service centre", and the
    # Chinese centre page nearer the centre; the dictionary reads the page's words
    result = await service.ask("服務中心幾點開門？")
    assert result.outcome == "answered", result.answer
    assert [c["document"] for c in result.citations] == ["office-hours"], result.citations
    assert any("Monday to Friday from 8:30 to 17:30" in s for s in items(result.answer))
    # things the pages do not name stay unanswered: the library card page holds no hour
    # and the hours page names no library; one "Service" is not both the tax office's
    # words (税务 is glossed "taxation services"); a glossed word is loose (停车场 has
    # "work" among its glosses: the passport page's "working days" is no car park)
    for asked in (
        "圖書館幾點開門？",
        "稅務服務中心幾點開門？",
        "停車場收費多少？",
        "郵局幾點開門？",
        # 窗口 ("window"; glossed "opening") is named by no sentence saying it opens
        "窗口幾點開門？",
    ):
        result = await service.ask(asked)
        assert result.outcome == "refused", (asked, result.answer)


async def test_a_question_in_the_present_finds_its_page_in_the_past(
    service: AnswerService,
) -> None:
    # "lose" is the passport page's "A lost passport": the page answers, and the Chinese
    # library card's "遗失" (to lose) is no answer about a passport
    result = await service.ask("What should I do if I lose my passport?")
    assert result.outcome == "answered", result.answer
    assert {c["document"] for c in result.citations} == {"passport-renewal"}, result.citations
    assert "A lost passport must be reported to the police first." in items(result.answer)


async def test_is_it_open_on_a_day_is_a_time_asked_of_the_thing_named(
    service: AnswerService,
) -> None:
    # 開嗎 asks whether it is open: the English hours page answers for the centre, and
    # the day asked (星期天, 週一) names no part of the thing
    for asked in ("市民服务中心星期天开吗？", "市民服務中心星期日有開嗎？"):
        result = await service.ask(asked)
        assert result.outcome == "answered", (asked, result.answer)
        assert [c["document"] for c in result.citations] == ["office-hours"], result.citations
        assert "It is closed on Sundays and public holidays." in items(result.answer)
    # no page gives the library's hours: a day named is no library's
    for asked in ("圖書館週一有開嗎？", "图书馆星期一开门吗？", "Is the library open on Mondays?"):
        result = await service.ask(asked)
        assert result.outcome == "refused", (asked, result.answer)


MUSEUM_FAQ = """# City Museum FAQ

## How much are tickets?

Adult tickets cost 15 dollars; children under 12 and residents over 65 enter free. A family
ticket for two adults and up to three children is 35 dollars.

## When is the museum open?

Tuesday to Sunday from 10:00 to 18:00, and until 21:00 on Thursdays. The museum is closed
on Mondays.

## Do you offer guided tours?

Guided tours in English start at 11:00 every weekend and cost 5 dollars on top of the ticket.
"""


async def test_an_faq_page_beside_the_documents_answers_no_other_things_price(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    files = {p.name: p.read_text() for p in sorted(SAMPLES.iterdir())}
    service = await answer_service(
        {**files, "museum-faq.md": MUSEUM_FAQ}, db, ingestion, searcher, embedder
    )
    # "how much is" asks a price: the museum's tickets are another thing's, and an English
    # page about another thing does not shut out the Chinese pages about the thing asked
    for asked, page, quoted in (
        ("how much is a parking permit per year", "停車許可證", "1,200"),
        ("how much is a library card", "图书馆借书证", "免费"),
    ):
        result = await service.ask(asked)
        assert result.outcome == "answered", (asked, result.answer)
        assert result.citations[0]["document"] == page, (asked, result.citations)
        assert quoted in result.answer and "dollars" not in result.answer, result.answer
    result = await service.ask("How much are the museum tickets?")
    assert result.citations[0]["document"] == "museum-faq", result.answer
    assert "15 dollars" in result.answer


POOL_RULES = """# City swimming pool rules

All swimmers at the city swimming pool must wear a swimming cap. Swimming caps are sold at
the pool's front desk. Children under 8 must be accompanied by an adult.
"""
POOL_ZH = """# 市立游泳池使用须知

## 票价

成人每次入场收费 20 元，长者及儿童 10 元。每一位泳客须穿着泳帽。

## 开放时间

游泳池每日上午 6 时至晚上 10 时开放，每周一上午休息清洁。

## 热线

热线24小时服务，请拨打 1823 查询。
"""


async def test_hours_asked_are_never_answered_with_a_price_or_a_rule(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    files = {"pool-rules.md": POOL_RULES, "游泳池.md": POOL_ZH}
    service = await answer_service(files, db, ingestion, searcher, embedder)
    for asked in (
        "What time does the city swimming pool open?",
        "When does the city swimming pool open?",
        "游泳池几点关门？",
    ):
        result = await service.ask(asked)
        # the English rules page holds no hour: it shuts out no Chinese page holding one,
        # and takes no answer away from it; neither is a price or a rule an hour
        quoted = items(result.answer)
        assert not any("20 元" in s or "cap" in s or "泳帽" in s for s in quoted), (asked, quoted)
        if result.outcome == "answered":
            assert any("上午 6 时至晚上 10 时" in s for s in quoted), (asked, quoted)
        assert "1823" not in result.answer


async def test_another_things_price_in_the_same_language_is_no_answer(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    files = {
        "dog_licence.md": "# Dog licence\n\nA dog licence costs 35 dollars a year.\n",
        "parking_permit.md": "# Parking permit\n\nA parking permit costs 80 dollars a year.\n",
    }
    service = await answer_service(files, db, ingestion, searcher, embedder)
    result = await service.ask("How much does a fishing licence cost?")
    assert result.outcome == "refused", result.answer
    result = await service.ask("How much does a dog licence cost?")
    assert items(result.answer) == ["A dog licence costs 35 dollars a year."]


async def test_how_many_books_is_a_count_not_a_fine(service: AnswerService) -> None:
    result = await service.ask("圖書館借書證可以借幾本書？")
    assert result.outcome == "answered", result.answer
    quoted = items(result.answer)
    assert quoted[0].startswith("每張借書證最多可借二十冊圖書"), quoted
    # a fine or a fee is money, no number of books
    assert not any("罰款" in s or "費用" in s for s in quoted), quoted


async def test_how_long_after_a_price_question_quotes_durations(service: AnswerService) -> None:
    first = await service.ask("How much does it cost to renew a passport?", conversation="c1")
    assert items(first.answer)[0] == "The fee is 1,300 dollars."
    result = await service.ask("And how long does it take?", conversation="c1")
    assert result.outcome == "answered", result.answer
    quoted = items(result.answer)
    assert quoted[0].startswith("Processing takes 4 working days"), quoted
    assert not any("dollars" in s for s in quoted), quoted


async def test_a_heading_asked_as_a_question_is_never_quoted(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> None:
    page = (
        "Passport renewal\n\nHow do I renew?\nBring your old passport and one colour photo "
        "to the City Service Centre.\n\nHow long does it take?\nProcessing takes 4 working days."
    )
    service = await answer_service({"passport.txt": page}, db, ingestion, searcher, embedder)
    for asked, answer in (
        ("How do I renew my passport?", "Bring your old passport"),
        ("How long does a passport renewal take?", "Processing takes 4 working days."),
    ):
        result = await service.ask(asked)
        quoted = items(result.answer)
        assert quoted and quoted[0].startswith(answer), (asked, quoted)
        assert not any(s.endswith("?") for s in quoted), (asked, quoted)


def test_a_sentence_that_asks_is_the_section_of_its_answer_not_a_quote() -> None:
    page = (
        "Passport renewal\n\nHow do I renew?\nBring your old passport and one colour photo "
        "to the City Service Centre.\n\nHow long does it take?\nProcessing takes 4 working days."
    )
    assert extractive("How do I renew my passport?", page) == [
        "Bring your old passport and one colour photo to the City Service Centre."
    ]
    assert extractive("How long does it take to renew a passport?", page) == [
        "Processing takes 4 working days."
    ]
    quoted = quotable(passage_sentences({"text": page}), page)
    assert [q.section for q in quoted] == ["How do I renew?", "How long does it take?"]


def test_a_title_ending_in_a_question_mark_and_a_percentage_asked_are_no_question_nor_count() -> (
    None
):
    # the sentence splitter cuts at a quoted title's question mark: the statement stays
    assert not asks("他發表了四篇論文：《論運動物體的電動力學》、《物體慣性與其所含能量有關嗎?")
    assert asks("How do I renew?") and asks("借書證遺失怎麼辦？")
    assert answer_kinds("發動機的效率是多少百分比？") == ["amount"]
    assert answer_kinds("發動機有多少個氣缸？") == ["count", "amount"]
    assert answer_kinds("How many days does it take?") == ["duration", "amount"]


def test_the_words_of_asking_are_no_part_of_the_subject() -> None:
    # "docs about the passport fee" asks of a passport: a passport page holds its subject
    assert subject_words("docs about the passport fee") == {"passport"}
    assert subject_words("help me with the passport renewal fee") == {"passport", "renewal"}
    assert subject_words("I need to know the parking permit price asap") == {"parking", "permit"}
    assert subject_words("幫我查一下護照換發要多少錢？") == {"护照", "换发"}
    assert subject_words("How much does a fishing licence cost?") == {"fishing", "licence"}
    # what the asker adds in another sentence names no part of the thing
    assert subject_words("How much is a dog licence? mail me at [EMAIL]") == {"dog", "licence"}
    assert subject_words("Hi! How much does a passport cost? thanks") == {"passport"}


def test_the_words_of_validity_asked_are_no_part_of_the_subject() -> None:
    # 有效期 names the kind of duration asked: a parking permit's 有效期一年 holds it, and
    # must not make the permit's page about a passport
    assert subject_words("护照有效期多久？") == {"护照"}
    assert subject_words("How long is a passport valid?") == {"passport"}
    assert subject_words("When does my library card expire?") == {"library", "card"}
    # "valid" before a noun is the thing's own word, and "use" a land use permit's
    assert subject_words("How much is a valid ID card?") == {"valid", "id", "card"}
    assert subject_words("How long is a land use permit valid?") == {"land", "use", "permit"}


async def test_a_validity_no_page_states_is_refused(service: AnswerService) -> None:
    # the passport page states durations (processing, a photo's age) but no validity, and
    # the parking permit's validity is another thing's
    for asked in ("护照有效期多久？", "How long is a passport valid?"):
        result = await service.ask(asked)
        assert result.outcome == "refused", (asked, result.answer)
    result = await service.ask("How long is a parking permit valid?")
    assert result.outcome == "answered" and "有效期一年" in result.answer, result.answer


def test_a_contraction_names_no_subject() -> None:
    # "what's" left "s", a subject word no document holds: "What's the fee?" was refused
    assert subject_words("What's the passport fee?") == {"passport"}
    assert subject_words("What's the fee?") == set()
    assert subject_words("How much is the fee for the passport, actually?") == {"passport"}
    # the rest of the question keeps its words whole
    assert split_question("How much does a kid's passport cost?")[1].startswith("how much does a")


def test_a_title_in_straight_quotes_that_asks_is_no_question() -> None:
    assert not asks('The permit costs 120 dollars; details are in the leaflet "Who needs a permit?')
    assert not asks('For details see the leaflet "Why renew early?"')
    assert asks("Lost your card?") and asks("如何換發護照？")


def test_a_day_next_to_the_asking_names_no_thing_and_one_naming_a_thing_stays() -> None:
    assert split_question("圖書館週一有開嗎？")[0] == "图书馆"
    assert split_question("Is the library open on Mondays?")[0] == "library"
    assert split_question("When does Sunday school open?")[0] == "sunday school"
    assert split_question("When does the weekend market open?")[0] == "weekend market"
    assert split_question("礼拜堂几点开门")[0] == "礼拜堂"
