"""A model's claim must answer the question asked, through the whole graph.

The real langchain-openai client talks to the fake server; the passages come from
embedded Postgres; the judge uses the local multilingual embedder, as the runtime
does. A claim true to its sentence but holding no answer of the kind asked (no
figure for "how many"), or about something the question does not ask about, is
never shown with a citation; the model reads only the passages and sentences
that hold the kind of answer asked, and is not asked at all when none does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.turn.service import AnswerService
from graph.claim_gate import ClaimGate
from graph.claim_question import about_question, closest, kind_missing, off_question
from graph.focus import answering, answering_passages
from graph.prompts import load
from graph.quotes import passage_sentences
from storage.embeddings import Embedder
from tests.graph.test_graph_llm import plan_reply
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.model_answers import OverDocument, resting_on

LIBRARY = (
    "# Central library\n\nThe central library lends books to every resident of the city. "
    "Members may borrow up to 12 books at a time. "
    "The reading room was designed by the architect Anna Berg.\n"
)
BORROW = "Members may borrow up to 12 books at a time."
DESIGN = "The reading room was designed by the architect Anna Berg."
PLAN = Reply(
    json.dumps(
        {
            "task_type": "simple_faq",
            "should_retrieve": True,
            "query": "central library members borrow books",
            "alternates": [],
        }
    )
)


@pytest.fixture
async def service(over_document: OverDocument) -> AnswerService:
    return await over_document("library.md", LIBRARY)


async def test_a_claim_holding_the_amount_asked_is_shown(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    fake.script = [PLAN, resting_on("12 books", "Members may borrow up to 12 books at a time.")]
    result = await service.ask("How many books can members of the central library borrow?")
    assert result.outcome == "answered", result.decision_path
    assert result.answer.startswith("Members may borrow up to 12 books at a time [1]")
    assert "response_synth:llm" in result.decision_path
    # the model read the sentence holding a figure and the one before it, not the others
    user = fake.requests[1]["messages"][-1]["content"]
    assert BORROW in user and "lends books" in user and "Anna Berg" not in user
    # the rules it read are the current prompt's, the same text every turn
    assert fake.requests[1]["messages"][0]["content"] == load("synth").text


async def test_a_true_claim_that_is_no_answer_to_the_question_is_never_shown(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    # true to its sentence, and on the passage's topic, but no number for "how many"
    claim = "The central library lends books to every resident of the city."
    fake.script = [PLAN, resting_on("lends books", claim)]
    result = await service.ask("How many books can members of the central library borrow?")
    assert claim.rstrip(".") not in result.answer
    assert "response_synth:claim_dropped:1:answer_kind" in result.decision_path
    assert "response_synth:llm" not in result.decision_path


async def test_no_answer_request_when_no_passage_holds_the_kind_asked(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    fake.script = [PLAN, resting_on("Anna Berg", DESIGN)]
    result = await service.ask("When was the reading room of the central library designed?")
    # a claim on any of these passages would be dropped: the model is not asked to write one
    assert len(fake.requests) == 1 and result.llm_calls == 1
    assert "response_synth:llm_discarded:answer_kind" in result.decision_path
    assert "Anna Berg" not in result.answer or "response_synth:llm" not in result.decision_path


def test_the_kind_asked_must_be_in_the_sentence_and_the_claim() -> None:
    question = "How much does an adult passport renewal cost?"
    sentence = "An adult passport renewal costs 1,300 dollars."
    assert not kind_missing(question, "It costs 1,300 dollars.", sentence)
    assert kind_missing(question, "Adults renew at the City Service Centre.", "Adults renew here.")
    # the claim dropped the figure its sentence gives: it answers nothing
    assert kind_missing(question, "An adult passport renewal has a fee.", sentence)
    # a Chinese sentence and an English claim hold the same kind
    assert not kind_missing("台北101哪一年完工？", "It was completed in 2004.", "於2004年完工。")
    # a question asking no kind (yes/no, "what") is not judged by kind
    assert not kind_missing("Can I renew online?", "Yes, online.", "You can renew online.")
    # what to bring is stated without a word of its kind: the claim names the items
    assert not kind_missing(
        "What do I need to bring to apply for a parking permit?",
        "You need your ID card, your driving licence and form PK-01.",
        "請攜帶身分證、行車執照正本，以及填妥的申請表 PK-01。",
    )


def test_a_sentence_must_be_about_what_the_question_asks_about() -> None:
    item = {"text": "Members may borrow books for three weeks. The car park has 40 spaces."}
    item["document"] = "Library"
    question = "How many books can members borrow?"
    car_park = "The car park has 40 spaces."
    assert not about_question(question, car_park, car_park, item)
    assert off_question(question, "It has 40 spaces.", car_park, item) == "off_subject"
    # a sentence naming its subject in the sentence before it, or under its title
    tower = {"text": "Taipei 101 was designed by Lee Tsu-yue. It was completed in 2004."}
    tower["document"] = "Tower"
    done = "It was completed in 2004."
    assert about_question("When was Taipei 101 completed?", done, done, tower)
    titled = {"text": "Completed in 2004.", "document": "Taipei 101"}
    assert about_question("When was Taipei 101 completed?", done, "Completed in 2004.", titled)


COLLECTIONS = (
    "The Far Eastern collections include more than 70,000 works of art from East Asia. "
    "The T. T. Tsui Gallery of Chinese art opened in 1991, displaying approximately "
    "16,000 objects from China."
)


def test_a_figure_about_something_else_in_the_passage_is_no_answer() -> None:
    # both sentences hold a figure, and both are on the passage's topic: only one is about
    # what the question asks about
    item = {"text": COLLECTIONS, "document": "Museum"}
    asked = "Approximately how many works of art are included in the Far Eastern collections?"
    right, other = COLLECTIONS.split(". ", 1)
    assert off_question(asked, right, right, item) is None
    wrong = "The gallery displays approximately 16,000 objects from China."
    assert off_question(asked, wrong, other, item) == "off_subject"


def test_a_claim_on_another_languages_passage_must_name_what_is_asked_about() -> None:
    # the passage shares no word with the question: the claim, in the question's
    # language, must hold what the question asks about
    other = {"text": "新堡是英格蘭北部的城市。", "document": "新堡", "cross_language": True}
    asked = "What is Engineering News-Record?"
    newcastle = "Newcastle is a city in the north of England."
    assert off_question(asked, newcastle, "新堡是英格蘭北部的城市。", other) == "off_subject"
    magazine = "Engineering News-Record is a trade magazine for the construction industry."
    assert off_question(asked, magazine, "《工程新闻记录》是建筑业的行业杂志。", other) is None
    # a claim left in the passage's language: words cannot tell, its meaning was judged
    city = "新堡是英格蘭北部的城市。"
    assert off_question(asked, city, city, other) is None
    # the kind of answer asked is checked whatever the language
    when = "When was Taipei 101 completed?"
    tower = {"text": "於2004年完工。樓高508米。", "document": "台北101", "cross_language": True}
    assert off_question(when, "Taipei 101 was completed in 2004.", "於2004年完工。", tower) is None
    tall = "Taipei 101 is 508 metres tall."
    assert off_question(when, tall, "樓高508米。", tower) == "answer_kind"


def test_a_claim_on_another_languages_passage_may_name_the_subject_in_another_form() -> None:
    # "reduced" states what "reducing" asks about: the claim was dropped as off the subject
    other: dict[str, Any] = {
        "text": "皮凱蒂聲稱戰爭減少了不平等。",
        "document": "經濟不平等",
        "cross_language": True,
    }
    asked = "What was the biggest factor in reducing inequality according to Piketty?"
    claim = "Piketty claims that wars reduced inequality."
    assert off_question(asked, claim, other["text"], other) is None
    assert off_question(asked, "Wars were common.", other["text"], other) == "off_subject"


def test_only_passages_and_sentences_holding_the_kind_asked_are_offered() -> None:
    parts = ["The library lends books.", BORROW, DESIGN]
    assert answering(parts, ["amount"]) == [0, 1]
    assert answering(parts, []) is None
    fee = {"text": "An adult passport renewal costs 1,300 dollars.", "document": "passport"}
    place = {"text": "Adults renew passports at the City Service Centre.", "document": "centre"}
    asked = "How much does an adult passport renewal cost?"
    assert answering_passages(asked, [place, fee]) == [fee]
    assert answering_passages("Where do adults renew passports?", [place, fee]) == [place, fee]
    # what to bring is said in words of its own: every passage may hold it
    asked = "What do I need to bring to renew a passport?"
    assert answering_passages(asked, [place, fee]) == [place, fee]


def test_of_the_sentences_holding_the_kind_asked_the_closest_in_meaning_answers() -> None:
    near = {"A has 5": 0.9, "B has 7": 0.5, "C has none": 0.95}

    def similarity(question: str, sentence: str) -> float:
        return near[sentence]

    asked = "How many works are there?"
    assert closest(asked, "A has 5", ["A has 5", "B has 7"], similarity)
    assert not closest(asked, "B has 7", ["A has 5", "B has 7"], similarity)
    # a sentence holding no figure is no rival for "how many"; for "what", every one is
    assert closest(asked, "A has 5", ["A has 5", "C has none"], similarity)
    assert not closest("What is there?", "A has 5", ["A has 5", "C has none"], similarity)


async def test_a_claim_left_in_its_passages_language_must_rest_on_the_nearest_sentence(
    embedder: Embedder,
) -> None:
    # the model copied an English sentence for a Chinese question: words cannot tell what
    # it is about, so its sentence must be the passage's nearest to the question in meaning
    item = {"text": COLLECTIONS, "document": "Museum", "cross_language": True}
    item["grounded"] = False
    asked = "收藏品中大约包含多少件来自远东的艺术品？"
    right, other = passage_sentences(COLLECTIONS)[:2]
    for claim, sid, shown in ((other, 2, False), (right, 1, True)):
        seen: list[str] = []
        gate = ClaimGate([item], seen.append, embedder.model, None, "zh-hans", asked)
        gate.add(claim, None, None, [(1, sid)])
        await gate.finish()
        assert bool(seen) is shown, gate.dropped
        assert gate.dropped == ([] if shown else ["1:not_closest"])


async def test_the_model_is_never_offered_another_things_price(
    over_document: OverDocument, fake: FakeOpenAI
) -> None:
    # found by its words ("licence", "cost"), but about dogs
    dogs = (
        "# Dog licences\n\nEvery dog kept in the city needs a licence. A dog licence costs"
        " 20 dollars a year.\n"
    )
    service = await over_document("dogs.md", dogs)
    plan = plan_reply(query="licence cost")
    # a model that would restate the dog licence's fee, true to its sentence
    fake.script = [plan, resting_on("20 dollars", "A dog licence costs 20 dollars a year.")]
    result = await service.ask("How much does a fishing licence cost?")
    assert result.outcome == "refused", result.decision_path
    assert "20 dollars" not in result.answer
    assert "response_synth:off_subject" in result.decision_path
    # the only request was the plan: no answer was asked for from a page about dogs
    assert len(fake.requests) == 1
    # the dog licence's own price is still answered from it by the model
    fake.script = [plan, resting_on("20 dollars", "A dog licence costs 20 dollars a year.")]
    result = await service.ask("How much does a dog licence cost?")
    assert result.outcome == "answered" and "20 dollars" in result.answer, result.decision_path
    assert "response_synth:llm" in result.decision_path


async def test_a_condition_with_when_asks_no_date_of_the_answer(
    over_document: OverDocument, fake: FakeOpenAI
) -> None:
    # "what should I do when …" asks what to do: the sentence saying it holds no date,
    # and the model is asked, and its answer shown
    lost = (
        "# Lost passports\n\nA lost passport must be reported to the police first. "
        "Bring the police report to the City Service Centre.\n"
    )
    service = await over_document("lost.md", lost)
    plan = plan_reply(query="lost passport report police")
    claim = "Report the lost passport to the police first."
    fake.script = [plan, resting_on("reported to the police", claim)]
    result = await service.ask("What should I do when I lose my passport?")
    assert result.outcome == "answered", result.decision_path
    assert "response_synth:llm" in result.decision_path
    assert result.answer.startswith("Report the lost passport to the police first [1]")
