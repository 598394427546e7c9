"""Model claims judged by meaning against the sentence they quote, through the whole graph.

The real langchain-openai client talks to the fake server; the passages come from
embedded Postgres; the judge uses the local multilingual embedder, as the runtime
does. A Chinese answer quoting an English sentence is shown; the same with another
number, another name or the opposite polarity, or quoting what the passage does
not say, is dropped and never shown with a citation.
"""

from __future__ import annotations

import json

import pytest

from bot.turn.service import AnswerService
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.model_answers import OverDocument, resting_on

PASSPORT = (
    "# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
    "## Fees\n\nAn adult passport renewal costs 1,300 dollars and takes four working days.\n"
)
QUOTE = "An adult passport renewal costs 1,300 dollars and takes four working days."
QUESTION = "換發護照要多少錢？"
PLAN = Reply(
    json.dumps(
        {
            "task_type": "simple_faq",
            "should_retrieve": True,
            "query": "passport renewal fee",
            "alternates": [],
        }
    )
)


def claims(*items: tuple[str, str]) -> Reply:
    """A synth.v4 reply: (claim, quote) pairs, each citing the source holding 1,300."""
    body = [{"source": 0, "quote": q, "claim": c} for c, q in items]
    text = json.dumps({"answerable": True, "claims": body}, ensure_ascii=False)
    return Reply(text.replace('"source": 0', '"source": {n}'), cite="1,300")


@pytest.fixture
async def service(over_document: OverDocument) -> AnswerService:
    return await over_document("passport.md", PASSPORT)


async def test_a_chinese_claim_quoting_an_english_sentence_is_shown(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    fake.script = [PLAN, claims(("成人護照換發的費用是一千三百元，需要四個工作天。", QUOTE))]
    result = await service.ask(QUESTION)
    assert result.outcome == "answered"
    assert result.answer.startswith("成人護照換發的費用是一千三百元，需要四個工作天[1]")
    assert result.citations[0]["document"] == "passport"
    assert "response_synth:llm" in result.decision_path
    assert not any("claim_dropped" in step for step in result.decision_path)
    # the synthesis asked for claims resting on source sentences, cited by id (synth.v6);
    # a reply quoting the sentence instead, as this one does, is still judged by its quote
    schema = fake.requests[1]["response_format"]["json_schema"]["schema"]
    assert "claims" in schema["properties"]
    assert '"sentence"' in fake.requests[1]["messages"][0]["content"]


async def test_a_claim_left_in_its_passages_language_is_shown_under_a_lead_naming_it(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    # a small model often copies the sentence instead of translating it: the reader is
    # told it is the English document's sentence, on its own line, as extractive answers do
    fake.script = [PLAN, claims((QUOTE, QUOTE))]
    result = await service.ask(QUESTION)
    assert result.outcome == "answered"
    lead, quoted = result.answer.split("\n")[:2]
    assert lead == "以下摘自英文文件《passport》："
    assert quoted.startswith("An adult passport renewal costs 1,300 dollars") and "[1]" in quoted
    assert not any("claim_dropped" in step for step in result.decision_path)


@pytest.mark.parametrize(
    ("claim", "quote", "reason"),
    [
        ("成人護照換發的費用是一千六百元。", QUOTE, "number"),
        ("成人護照換發的費用是壹仟陸佰元。", QUOTE, "number"),
        ("成人在 Kaohsiung 換發護照的費用是一千三百元。", QUOTE, "other_entity"),
        ("成人護照換發不需要付一千三百元。", QUOTE, "polarity"),
        (
            "兒童護照換發免費。",
            "A child passport renewal is free of charge.",
            "quote_not_found",
        ),
        (
            "成人護照換發的費用是一千六百元。",
            "An adult passport renewal costs 1,600 dollars and takes four working days.",
            "quote_not_found",
        ),
    ],
)
async def test_a_claim_with_another_fact_or_a_quote_the_passage_lacks_is_never_shown(
    service: AnswerService, fake: FakeOpenAI, claim: str, quote: str, reason: str
) -> None:
    fake.script = [PLAN, claims((claim, quote))]
    result = await service.ask(QUESTION)
    assert claim.rstrip("。") not in result.answer
    assert f"response_synth:claim_dropped:1:{reason}" in result.decision_path
    assert f"response_synth:llm_discarded:{reason}" in result.decision_path


async def test_a_dropped_claim_leaves_the_ones_that_hold(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    fake.script = [
        PLAN,
        claims(
            ("成人護照換發的費用是一千三百元。", QUOTE),
            ("成人護照換發需要九個工作天。", QUOTE),
        ),
    ]
    result = await service.ask(QUESTION)
    assert result.answer.startswith("成人護照換發的費用是一千三百元[1]。")
    assert "九" not in result.answer
    assert "response_synth:claim_dropped:2:number" in result.decision_path
    assert "response_synth:llm" in result.decision_path


@pytest.mark.parametrize("marker", ["1. [1]", "'] [1]", "[1]", "-"])
async def test_a_sentence_with_nothing_to_check_is_never_an_answer(
    service: AnswerService, fake: FakeOpenAI, marker: str
) -> None:
    # as a claim of its own, and as the whole answer text of a model without quotes
    fake.script = [PLAN, claims((marker, QUOTE))]
    result = await service.ask(QUESTION)
    assert "response_synth:claim_dropped:1:empty" in result.decision_path
    assert not result.answer.startswith(marker)
    fake.script = [PLAN, Reply(json.dumps({"answerable": True, "answer": marker}))]
    result = await service.ask("換發護照費用是多少？")
    assert "response_synth:llm" not in result.decision_path
    assert not result.answer.startswith(marker)


async def test_a_model_giving_no_quote_is_judged_on_the_best_passage_sentence(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    answer = {"answerable": True, "answer": "成人護照換發的費用是一千三百元 [{n}]。"}
    fake.script = [PLAN, Reply(json.dumps(answer, ensure_ascii=False), cite="1,300")]
    result = await service.ask(QUESTION)
    assert result.answer.startswith("成人護照換發的費用是一千三百元 [1]")
    assert "response_synth:llm" in result.decision_path
    wrong = {"answerable": True, "answer": "成人護照換發的費用是一千六百元 [{n}]。"}
    fake.script = [PLAN, Reply(json.dumps(wrong, ensure_ascii=False), cite="1,300")]
    result = await service.ask("換發護照費用是多少？")
    assert "一千六百" not in result.answer
    assert "response_synth:claim_dropped:number" in result.decision_path


async def test_a_reply_cut_off_after_a_claim_keeps_the_claim_it_finished(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    # the token cap ends the stream inside the second claim: the first was judged and stands
    whole = claims(
        ("成人護照換發的費用是一千三百元。", QUOTE),
        ("成人護照換發需要四個工作天。", QUOTE),
    )
    cut_at = whole.content.index('{"source"', whole.content.index("一千三百"))
    fake.script = [PLAN, Reply(whole.content[: cut_at + 20], cut=True, cite="1,300")]
    result = await service.ask(QUESTION)
    assert result.answer.startswith("成人護照換發的費用是一千三百元[1]。")
    assert "response_synth:llm" in result.decision_path
    assert result.citations[0]["document"] == "passport"


async def test_a_reply_cut_off_before_any_claim_finished_is_discarded(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    whole = claims(("成人護照換發的費用是一千三百元。", QUOTE))
    fake.script = [PLAN, Reply(whole.content[:60], cut=True, cite="1,300")]
    result = await service.ask(QUESTION)
    assert "response_synth:llm_discarded:no_reply" in result.decision_path


CHINESE = "# 護照換發\n\n成人換發護照的費用是一千三百元，需要四個工作天。\n"
CHINESE_QUOTE = "成人換發護照的費用是一千三百元，需要四個工作天。"


@pytest.fixture
async def chinese_only(over_document: OverDocument) -> AnswerService:
    """The service over one Chinese document (an English question crosses languages)."""
    return await over_document("護照.md", CHINESE)


@pytest.mark.parametrize(
    ("claim", "shown"),
    [
        ("An adult passport renewal costs 1,300 dollars and takes four working days.", True),
        ("Renewing an adult passport takes four working days and costs 1,300 dollars.", True),
        ("An adult passport renewal costs 1,600 dollars.", False),
        ("An adult passport renewal does not cost 1,300 dollars.", False),
    ],
)
async def test_an_english_claim_quoting_a_chinese_sentence(
    chinese_only: AnswerService, fake: FakeOpenAI, claim: str, shown: bool
) -> None:
    reply = {"answerable": True, "claims": [{"source": 0, "quote": CHINESE_QUOTE, "claim": claim}]}
    text = json.dumps(reply, ensure_ascii=False).replace('"source": 0', '"source": {n}')
    fake.script = [PLAN, Reply(text, cite="一千三百")]
    result = await chinese_only.ask("How much does it cost to renew an adult passport?")
    assert (claim.rstrip(".") in result.answer) is shown, result.decision_path
    assert ("response_synth:llm" in result.decision_path) is shown


def by_id(*items: tuple[str, str]) -> Reply:
    """A synth.v6 reply: (claim, sentence id) pairs; "{id}" stands for the id of the
    source sentence holding 1,300, as the request numbers it."""
    body = [{"sentence": sid, "claim": c} for c, sid in items]
    return Reply(json.dumps({"answerable": True, "claims": body}, ensure_ascii=False), cite="1,300")


async def test_a_chinese_claim_citing_an_english_sentence_by_id_is_shown(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    fake.script = [PLAN, by_id(("成人護照換發的費用是一千三百元，需要四個工作天。", "{id}"))]
    result = await service.ask(QUESTION)
    assert result.outcome == "answered"
    assert result.answer.startswith("成人護照換發的費用是一千三百元，需要四個工作天[1]")
    assert result.citations[0]["document"] == "passport"
    assert "response_synth:llm" in result.decision_path
    assert not any("claim_dropped" in step for step in result.decision_path)
    # the model read the passage as numbered sentences, the fee's among them, under its title
    user = fake.requests[1]["messages"][-1]["content"]
    assert user.startswith("<sources>\n[1] (passport)\n[1.")
    assert any(line.startswith("[1.") and line.endswith(QUOTE) for line in user.split("\n"))
    items = fake.requests[1]["response_format"]["json_schema"]["schema"]["$defs"]
    assert {"sentence", "claim"} <= set(items["CitedClaim"]["properties"])


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        ("成人護照換發的費用是一千六百元。", "number"),
        ("成人在 Kaohsiung 換發護照的費用是一千三百元。", "other_entity"),
        ("成人護照換發不需要付一千三百元。", "polarity"),
    ],
)
async def test_a_claim_citing_a_sentence_by_id_with_another_fact_is_never_shown(
    service: AnswerService, fake: FakeOpenAI, claim: str, reason: str
) -> None:
    fake.script = [PLAN, by_id((claim, "{id}"))]
    result = await service.ask(QUESTION)
    assert claim.rstrip("。") not in result.answer
    assert f"response_synth:claim_dropped:1:{reason}" in result.decision_path
    assert f"response_synth:llm_discarded:{reason}" in result.decision_path


@pytest.mark.parametrize("sid", ["1.9", "4.1", "0.1", "1.0", "one", ["{id}", "1.9"]])
async def test_a_claim_citing_a_sentence_id_that_does_not_exist_is_never_shown(
    service: AnswerService, fake: FakeOpenAI, sid: str | list[str]
) -> None:
    claim = "成人護照換發的費用是一千三百元。"
    fake.script = [PLAN, Reply(by_id((claim, "x")).content.replace('"x"', json.dumps(sid)))]
    fake.script[-1].cite = "1,300"
    result = await service.ask(QUESTION)
    assert claim.rstrip("。") not in result.answer
    assert "response_synth:claim_dropped:1:sentence_not_found" in result.decision_path
    assert "response_synth:llm_discarded:sentence_not_found" in result.decision_path


async def test_a_sentence_id_with_a_quote_the_passage_lacks_is_never_shown(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    # the id names a real sentence, but a quote given besides must be the passage's too
    reply = {
        "answerable": True,
        "claims": [
            {
                "sentence": "{id}",
                "quote": "An adult passport renewal costs 1,600 dollars.",
                "claim": "成人護照換發的費用是一千三百元。",
            }
        ],
    }
    fake.script = [PLAN, Reply(json.dumps(reply, ensure_ascii=False), cite="1,300")]
    result = await service.ask(QUESTION)
    assert "一千三百" not in result.answer
    assert "response_synth:claim_dropped:1:quote_not_found" in result.decision_path


@pytest.mark.parametrize("marker", ["1. [1]", "[1.1]", "'] [1]", ""])
async def test_a_claim_citing_a_sentence_by_id_with_nothing_to_say_is_never_shown(
    service: AnswerService, fake: FakeOpenAI, marker: str
) -> None:
    fake.script = [PLAN, by_id((marker, "{id}"))]
    result = await service.ask(QUESTION)
    assert "response_synth:claim_dropped:1:empty" in result.decision_path
    assert "response_synth:llm" not in result.decision_path
    assert not result.answer.startswith(marker or "[")


SOYBEANS = (
    "# Soybean farming\n\nSoybeans are grown across South America.\n\n"
    "Brazil is the second-largest producer of soybeans in the world, after the United States.\n"
)


@pytest.mark.parametrize(
    ("claim", "shown"),
    [
        ("巴西是全球第二大的大豆生產國，僅次於美國。", True),
        ("巴西是全球第三大的大豆生產國。", False),
    ],
)
async def test_a_chinese_ordinal_stands_on_the_english_ordinal_word_it_translates(
    over_document: OverDocument, fake: FakeOpenAI, claim: str, shown: bool
) -> None:
    # 第二 is the number 2, "second" an English word: the claim was dropped as stating a
    # number its sentence did not
    english = await over_document("soybeans.md", SOYBEANS)
    fake.script = [PLAN, resting_on("second-largest", claim)]
    result = await english.ask("巴西的大豆產量在全球排第幾？")
    assert (claim.rstrip("。") in result.answer) is shown, result.decision_path[5:]
    dropped = "response_synth:claim_dropped:1:number" in result.decision_path
    assert dropped is not shown
