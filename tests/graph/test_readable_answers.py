"""Extractive answers (no model) that read as written text, asked as a new user asks the
sample documents: the sentence answering first, no heading quoted nor run into its
sentence, nothing that does not bear on the question, titles in the reader's script,
each part of a two-part question answered and cited (tests/graph/test_two_part_questions.py
asks the same of a sample-like document)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import bot
from bot.turn.service import AnswerService
from graph.answer_order import arrange
from graph.answer_sentences import heading_lines, quotable
from graph.cross_language import passage_sentences
from graph.extractive import _compose, _prepare
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.passport_faq import sample_service
from textkit.answer_type import answer_kinds, holds

SAMPLES = Path(bot.__file__).parent / "sample" / "docs"


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, embedder: Embedder
) -> AnswerService:
    return await sample_service(db, ingestion, searcher, embedder)


def items(answer: str) -> list[str]:
    """The answer's quoted sentences, without their `- ` and citation marks."""
    return [line[2:].rsplit(" [", 1)[0] for line in answer.splitlines() if line.startswith("- ")]


async def test_the_fee_sentence_answers_how_much_a_renewal_costs(service: AnswerService) -> None:
    result = await service.ask("How much does it cost to renew a passport?")
    assert result.outcome == "answered"
    assert result.answer.splitlines()[1] == "- The fee is 1,300 dollars. [1]"
    # the passport page's sentences that name no price do not answer it
    assert not any("Residents can renew" in s or "colour photo" in s for s in items(result.answer))


async def test_how_much_is_a_thing_asks_its_price(service: AnswerService) -> None:
    result = await service.ask("How much is a passport renewal?")
    assert result.outcome == "answered"
    assert result.answer.splitlines()[1] == "- The fee is 1,300 dollars. [1]"
    # the photo's size is an amount, not a price
    assert not any("colour photo" in s for s in items(result.answer))


async def test_a_heading_is_never_a_line_of_the_answer(service: AnswerService) -> None:
    result = await service.ask("What are the opening hours of the City Service Centre?")
    assert result.outcome == "answered"
    quoted = items(result.answer)
    assert quoted[0].startswith("The City Service Centre at 1 Harbour Road is open Monday")
    assert "City Service Centre opening hours" not in quoted
    assert not any(s.startswith("City Service Centre opening hours") for s in quoted)
    # the lost-passport page names the centre too, but says nothing of its hours
    assert not any("police" in s for s in quoted)


async def test_what_to_bring_is_quoted_across_languages(service: AnswerService) -> None:
    english = await service.ask("What do I need to bring to apply for a parking permit?")
    assert english.outcome == "answered"
    quoted = items(english.answer)
    assert "請攜帶身分證、行車執照正本，以及填妥的申請表 PK-01。" in quoted
    # the rules of who may apply answer another question
    assert not any(s.startswith("設籍本市的居民") for s in quoted)
    chinese = await service.ask("护照续期要准备什么材料？")
    assert chinese.outcome == "answered"
    quoted = items(chinese.answer)
    assert any(s.startswith("Bring your old passport, one colour photo") for s in quoted)
    assert not any(s.startswith("A lost passport must be reported") for s in quoted)
    assert not any(s.startswith("Residents can renew") for s in quoted)


def test_what_is_brought_about_or_barred_is_no_item_to_bring() -> None:
    assert holds("請攜帶身分證、行車執照正本。", "items")
    assert not holds("The roadworks will bring delays on Harbour Road.", "items")
    assert not holds("館內禁止攜帶食物。", "items")
    assert not holds("Do not bring food into the reading room.", "items")


async def test_what_to_bring_for_one_procedure_leaves_out_anothers(
    service: AnswerService,
) -> None:
    renew = await service.ask("What do I need to bring to renew my passport?")
    assert renew.outcome == "answered"
    assert items(renew.answer) == [
        "Bring your old passport, one colour photo taken in the last six months "
        "(4.5 cm × 3.5 cm, white background) and the completed form PS-11."
    ]
    # the list all askers bring leads the list for a car in a family member's name
    permit = await service.ask("What documents do I need to apply for a parking permit?")
    assert items(permit.answer)[0].startswith("請攜帶身分證")


async def test_a_word_said_otherwise_leads_its_sentence(service: AnswerService) -> None:
    # 丟 ("lose") is not the page's word: 遺失 is, and the dictionary glosses both "to lose"
    result = await service.ask("停车许可证丢了怎么办？")
    assert result.outcome == "answered"
    assert items(result.answer)[0].startswith("许可证遗失时，请填写补发申请表 PK-02")


async def test_what_to_bring_leads_in_the_questions_language(service: AnswerService) -> None:
    result = await service.ask("What documents do I need to renew my passport?")
    assert result.outcome == "answered"
    assert items(result.answer)[0].startswith("Bring your old passport, one colour photo")


async def test_a_simplified_asker_sees_simplified_titles(service: AnswerService) -> None:
    result = await service.ask("停车许可证要带什么文件？")
    assert result.outcome == "answered" and result.language == "zh-hans"
    assert [c["title"] for c in result.citations][:1] == ["停车许可证"]
    assert [c["document"] for c in result.citations][:1] == ["停車許可證"]  # as stored
    assert items(result.answer)[0].startswith("请携带身分证")
    traditional = await service.ask("圖書館借書證可以借幾本書？")
    assert [c["title"] for c in traditional.citations][:1] == ["圖書館借書證"]


async def test_the_sample_passport_question_in_two_parts(service: AnswerService) -> None:
    result = await service.ask(
        "How much does it cost to renew a passport and what documents do I need to bring?"
    )
    assert "response_synth:parts:answered,answered" in result.decision_path
    lines = result.answer.splitlines()
    fee = lines.index('On "How much does it cost to renew a passport":')
    bring = lines.index('On "what documents do I need to bring":')
    # each part's answering sentence first, cited; the fee part quotes prices only
    assert lines[fee + 1] == "- The fee is 1,300 dollars. [1]"
    assert all("dollars" in line for line in lines[fee + 1 : bring])
    assert lines[bring + 1].startswith("- Bring your old passport, one colour photo")
    assert lines[bring + 1].endswith("[1]")
    assert not any("Residents can renew" in line for line in lines[fee:bring])
    assert [c["document"] for c in result.citations] == ["passport-renewal"]


def test_headings_are_short_lines_above_their_text_and_wrapped_lines_are_not() -> None:
    text = (
        "Opening hours\nThe library is open from 9:00 to 20:00 on weekdays.\n\n"
        "Residents can renew a card at the\nCity Library or by post.\n\n"
        "請攜帶身分證、行車執照正本，以及填妥的\n申請表 PK-01。\n\n"
        "## 費用\n\n每張收費 200 元。"
    )
    assert heading_lines(text) == ["Opening hours", "費用"]
    quoted = quotable(passage_sentences({"text": text}), text)
    # a heading run into its sentence is cut off and names the sentence's section
    assert quoted[0].sentence == "The library is open from 9:00 to 20:00 on weekdays."
    assert quoted[0].section == "Opening hours"
    assert quoted[1].sentence == "Residents can renew a card at the City Library or by post."
    # a wrapped Chinese line joins without a space
    assert quoted[2].sentence == "請攜帶身分證、行車執照正本，以及填妥的申請表 PK-01。"
    assert quoted[-1].sentence == "每張收費 200 元。" and quoted[-1].section == "費用"


def test_a_clause_cut_at_a_semicolon_is_quoted_with_its_sentence() -> None:
    text = "Bring the police report to the centre; the old passport is cancelled. It is free."
    sentences = [q.sentence for q in quotable(passage_sentences({"text": text}), text)]
    assert sentences == [
        "Bring the police report to the centre; the old passport is cancelled.",
        "It is free.",
    ]


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("How much does it cost to renew a passport?", ["price", "maybe_price"]),
        ("停車許可證多少錢？", ["price", "maybe_price"]),
        ("How much is a passport renewal?", ["price", "maybe_price"]),
        ("How much of the budget goes to schools?", ["amount"]),
        # "how much is" a measure of another kind, or what changed by how much: amounts
        ("How much is the processing time for a passport by post?", ["amount"]),
        ("How much was the city's electricity use cut?", ["amount"]),
        ("How much is left in the fund?", ["amount"]),
        ("How long does it take?", ["duration", "amount"]),
        ("When is the service centre open on Saturday?", ["time", "date"]),
        ("When was the library founded?", ["date"]),
        # what to bring or hand in
        ("What do I bring?", ["items"]),
        ("护照续期需要什么材料？", ["items"]),
        ("Which documents are required for a parking permit?", ["items"]),
        # steps and conditions are no items, nor a thing's material, a fee, a yes or no
        ("What do I need to do to renew my passport?", []),
        ("停车许可证需要什么条件？", []),
        ("Which items are not allowed on the bus?", []),
        ("What material is the statue made of?", []),
        ("办借书证要交什么钱？", []),
        ("Is an ID required for children under 12?", []),
        ("Who may supply scheduled medicines?", []),
    ],
)
def test_the_kinds_of_answer_asked(question: str, kinds: list[str]) -> None:
    assert answer_kinds(question) == kinds


def test_what_holds_a_price_a_duration_and_a_time() -> None:
    assert holds("The fee is 1,300 dollars.", "price")
    assert holds("每張許可證每年收費新臺幣 1,200 元。", "price")
    assert not holds("Bring a photo (4.5 cm × 3.5 cm).", "price")
    assert holds("申請後約七個工作天核發。", "duration")
    assert holds("Processing takes 4 working days.", "duration")
    assert holds("It is open on Saturday mornings from 9:00 to 12:00.", "time")
    assert not holds("Phone enquiries: 1999.", "time")


def extractive(question: str, *texts: str, language: str = "en") -> list[str]:
    """The quoted sentences of the extractive answer to `question` from passages `texts`."""
    evidence: list[dict[str, Any]] = [
        {"text": t, "document": f"Doc{i}", "language": language, "graded": "answer", "heading": ""}
        for i, t in enumerate(texts)
    ]
    wanted, candidates = _prepare(question, evidence)
    answer, _ = _compose(wanted, evidence, candidates, "", {}, language, question)
    return items(answer)


def test_a_statement_line_without_a_full_stop_is_no_heading() -> None:
    parking = (
        "Parking\n\nParking is not allowed on Main Street\n\n"
        "Residents can park on Main Street side roads with a permit. "
        "Permits are issued by the centre."
    )
    assert heading_lines(parking) == ["Parking"]
    assert "Parking is not allowed on Main Street" in extractive(
        "Can I park on Main Street?", parking
    )
    for line in ("Do not pay by gift card", "Open daily 9am to 5pm", "Fee: 80 dollars"):
        assert heading_lines(f"Passport\n\n{line}\n\nBring a photo.") == ["Passport"]
    fee = "Passport renewal\n\nFee: 80 dollars\n\nBring your old passport. Apply at the centre."
    assert extractive("How much is the passport fee?", fee) == ["Fee: 80 dollars"]
    zh = "护照换发\n\n费用：1300元\n\n请携带旧护照及照片一张。"
    assert extractive("护照费用多少？", zh, language="zh-hans") == ["费用：1300元"]
    hours = "Opening hours\n\nMonday to Friday 9:00 to 17:00\n\nThe office is in the town hall."
    assert extractive("When is the office open?", hours) == ["Monday to Friday 9:00 to 17:00"]


def test_another_documents_free_does_not_answer_a_price_question() -> None:
    passport = (
        "Passport renewal\n\nResidents can renew an adult passport at the City Service Centre "
        "or by post. Bring your old passport and one colour photo."
    )
    for other in (
        "Bulky waste\n\nResidents can book a free bulky waste collection twice a year.",
        "Wi-Fi\n\nFree Wi-Fi is available in the waiting area.",
    ):
        # the passport page states no price, and the other page's "free" is no price of
        # a passport: nothing answers, so nothing is quoted (the turn is refused)
        assert extractive("How much is a passport renewal?", passport, other) == []
        # with its fee on the page, the fee is the answer
        priced = f"{passport} The fee is 1,300 dollars."
        quoted = extractive("How much is a passport renewal?", priced, other)
        assert quoted[0] == "The fee is 1,300 dollars."
        assert not any("free" in s.lower() for s in quoted)
    # "free" names a price only where it is one
    assert holds("Street parking is free on Sundays.", "price")
    assert holds("Entry is free for residents.", "price")
    assert holds("The app is free to download.", "price")
    assert not holds("Call our toll-free hotline.", "price")
    assert not holds("Free Wi-Fi is available in the waiting area.", "price")
    assert not holds("Residents can book a free bulky waste collection twice a year.", "price")


def test_a_price_written_bare_answers_however_the_price_is_asked() -> None:
    museum = (
        "Harbour Museum\n\nThe Harbour Museum is open daily from 10 to 6. Call 1823 to book "
        "a group visit.\n\nTickets\n\nAdults 20, children 10."
    )
    for question in ("How much is a ticket to the Harbour Museum?", "What does a ticket cost?"):
        # the hours and the number to dial are no price: the tickets line alone answers
        assert extractive(question, museum) == ["Adults 20, children 10."]
    advice = "Tenancy advice\n\nCharges\n\nPhone consultation 200 per session."
    # "phone" there names the service, not a number to dial
    assert extractive("How much is a phone consultation?", advice) == [
        "Phone consultation 200 per session."
    ]


def test_a_kind_only_the_earlier_part_asks_does_not_refuse_the_next_part() -> None:
    museum = (
        "Musical instruments\n\nA petition asked Parliament about the gallery. The answer "
        "came from Bryan Davies, who said the museum would keep the collection available to "
        "the public."
    )
    question = "which Member of Parliament said the museum would keep the collection available?"
    evidence: list[dict[str, Any]] = [
        {"text": museum, "document": "Doc0", "language": "en", "graded": "answer", "heading": ""}
    ]
    wanted, candidates = _prepare(question, evidence)
    # the part before it asked a count ("how many names …"); this part asks a name
    earlier = "Approximately how many names were on the petition"
    answer, _ = _compose(wanted, evidence, candidates, earlier, {}, "en", question)
    assert any("Bryan Davies" in s for s in items(answer))
    # asked a count itself, the page holds none: nothing is quoted
    answer, _ = _compose(set(), evidence, candidates, "", {}, "en", earlier)
    assert items(answer) == []


def test_a_price_noun_in_other_words_asks_no_price_to_refuse_by() -> None:
    physics = (
        "Electromagnetism\n\nElectric current is the time rate of change of electric "
        "charge. A magnetic field exerts a force on a moving charge."
    )
    # "charge" names a price in "what is the charge?", but the question asks no "how
    # much": without a price on the page, its sentences still answer
    assert extractive("What is the time rate of change of electric charge?", physics)[0] == (
        "Electric current is the time rate of change of electric charge."
    )


def test_a_list_is_quoted_whole_after_its_intro() -> None:
    bulky = (
        "Bulky waste\n\nTo book a collection you need:\n- a reference number\n"
        "- your address\n- a list of items\n\nCall 311 to book."
    )
    quoted = extractive("What do I need to book a bulky waste collection?", bulky)
    start = quoted.index("To book a collection you need:")
    assert quoted[start + 1 : start + 4] == [
        "a reference number",
        "your address",
        "a list of items",
    ]
    # beyond the answer's sentence cap, and numbered items are items too
    items_ = [f"- document {n}" for n in range(1, 6)]
    long = "Permit\n\nYou need:\n" + "\n".join(items_) + "\n\nApply online."
    quoted = extractive("What documents do I need for a permit?", long)
    assert quoted[:6] == ["You need:", *(f"document {n}" for n in range(1, 6))]
    for marks in (["1. ", "2. ", "3. "], ["（一）", "（二）", "（三）"]):
        zh = (
            f"停車許可證\n\n申請人需要：\n{marks[0]}住址證明\n{marks[1]}車輛登記證\n"
            f"{marks[2]}身份證明文件\n\n可網上申請。"
        )
        quoted = extractive("停車許可證需要什麼文件？", zh, language="zh-hant")
        assert quoted[:4] == [
            "申請人需要：",
            f"{marks[0]}住址證明",
            f"{marks[1]}車輛登記證",
            f"{marks[2]}身份證明文件",
        ]


def test_a_sentence_setting_the_answers_terms_stays_without_the_kind() -> None:
    hours = (
        "Opening hours\n\nThe office is open Monday to Friday, 9:00 to 17:00. "
        "The office is closed on public holidays."
    )
    assert "The office is closed on public holidays." in extractive(
        "When is the office closed?", hours
    )
    fees = (
        "Passport fees\n\nThe passport fee is $80. "
        "The fee is waived for applicants over 65 and for refugees."
    )
    assert extractive("How much does a passport cost?", fees) == [
        "The passport fee is $80.",
        "The fee is waived for applicants over 65 and for refugees.",
    ]


def test_a_documents_fee_section_is_on_its_topic_though_it_repeats_no_word_of_it() -> None:
    question = "住宅區停車許可證一年多少錢？"
    picked = [  # (sentence, score, section and title, other language, (passage, position))
        (
            "設籍本市的居民可以申請住宅區停車許可證，每戶最多兩張。",
            2.0,
            "住宅區停車許可證",
            False,
            (0, 0),
        ),
        ("每張許可證每年收費新臺幣一千二百元。", 1.0, "費用 停車許可證", False, (1, 0)),
        ("Residents can book a free bulky waste collection.", 0.5, "Bulky waste", False, (2, 0)),
    ]
    documents = {0: "停車許可證", 1: "停車許可證", 2: "bulky-waste"}
    assert arrange(question, picked, 3, documents=documents)[0] == 1


def test_a_sentence_two_overlapping_chunks_hold_is_quoted_once() -> None:
    # a document cut into chunks that overlap: the sentence where they meet is in both,
    # and its copy must not take the place of another sentence under the cap
    first = "Mario Addison added 4 sacks in 2014. Fellow lineman Mario Addison added 6½ sacks."
    second = (
        "Fellow lineman Mario Addison added 6½ sacks. "
        "In the playoffs Mario Addison added 2 more sacks."
    )
    evidence: list[dict[str, Any]] = [
        {"text": t, "document": "Super Bowl 50", "language": "en", "graded": "pass", "heading": ""}
        for t in (first, second)
    ]
    question = "How many sacks did Mario Addison add?"
    wanted, candidates = _prepare(question, evidence)
    answer, citations = _compose(wanted, evidence, candidates, "", {}, "en", question)
    quoted = items(answer)
    assert quoted.count("Fellow lineman Mario Addison added 6½ sacks.") == 1
    assert "Mario Addison added 4 sacks in 2014." in quoted
    assert "In the playoffs Mario Addison added 2 more sacks." in quoted
    assert [c["document"] for c in citations] == ["Super Bowl 50"]
