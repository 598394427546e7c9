"""A claim across languages keeps its sentence's limits: a prohibition is a "may not",
"under 12" is no negation and not "over 12", "not only" says yes, and "may" after a
figure is the verb, not the month."""

from __future__ import annotations

import pytest

from graph.claim_checks import Passage, disagreement
from textkit.bounds import number_sides
from textkit.claims import numbers
from textkit.facts import disagreement as facts_disagreement
from textkit.polarity import negated


@pytest.mark.parametrize(
    ("quote", "false_claim", "true_claim"),
    [
        ("此處禁止吸菸。", "Smoking is allowed here.", "Smoking is not allowed here."),
        ("館內嚴禁飲食。", "You may eat in the building.", "Eating is not allowed inside."),
        ("Smoking is prohibited in the building.", "大樓內可以吸菸。", "大樓內禁止吸菸。"),
        ("Pets are forbidden in the flats.", "公寓可以養寵物。", "公寓不准養寵物。"),
        ("Dogs are banned from the beach.", "狗可以上海灘。", "狗不可以上海灘。"),
        # "under 18" holds no negation: the only "no" is 不得
        ("未滿18歲不得入場。", "Anyone under 18 may enter.", "Those under 18 may not enter."),
        (
            "未滿12歲兒童免費搭乘。",
            "Children under 12 do not travel free.",
            "Children under 12 travel free.",
        ),
        # "not only … but also" says yes to both
        (
            "本店不只收現金，也收信用卡。",
            "The shop does not take cash.",
            "The shop takes cash and cards.",
        ),
        ("This shop takes not just cash but also cards.", "本店不收現金。", "本店收現金和信用卡。"),
        # a condition before a comma makes a requirement: with an appointment, you are seen
        (
            "如無預約，恕不接待。",
            "Without an appointment, you will be received.",
            "Without an appointment, you will not be received.",
        ),
        (
            "凡未繳清費用者，不得借書。",
            "Those who have not paid can borrow books.",
            "Those who have not paid cannot borrow books.",
        ),
        ("No ID, no entry.", "沒有身分證也可以入場。", "沒有身分證不得入場。"),
    ],
)
def test_a_claim_across_languages_keeps_its_sentences_yes_or_no(
    quote: str, false_claim: str, true_claim: str
) -> None:
    assert facts_disagreement(false_claim, quote) == "polarity"
    assert facts_disagreement(true_claim, quote) is None


@pytest.mark.parametrize(
    ("quote", "claim"),
    [
        ("此處禁止吸菸。", "此处可以吸烟。"),
        ("本店不只收現金，也收信用卡。", "本店不收现金。"),
        ("未滿18歲不得入場。", "未滿18歲可以入場。"),
    ],
)
def test_a_claim_in_its_sentences_language_keeps_its_yes_or_no(quote: str, claim: str) -> None:
    assert disagreement(claim, Passage.of(quote)) == "polarity"


@pytest.mark.parametrize(
    ("quote", "false_claim", "true_claim"),
    [
        (
            "未滿12歲兒童免費搭乘。",
            "Children over 12 travel free.",
            "Children under 12 travel free.",
        ),
        (
            "未滿12歲兒童免費搭乘。",
            "Children aged 12 and over travel free.",
            "Children younger than 12 ride free.",
        ),
        ("Children under 12 travel free.", "12歲以上兒童免費搭乘。", "未滿12歲的兒童免費。"),
        ("Applicants must be at least 18.", "申請人須未滿18歲。", "申請人須年滿18歲。"),
        (
            "每戶不超過2張。",
            "Each household may hold more than 2.",
            "Each household may hold up to 2.",
        ),
        ("The hall seats more than 300 people.", "禮堂最多可坐300人。", "禮堂可容納超過300人。"),
    ],
)
def test_a_claim_does_not_turn_a_limit_round(quote: str, false_claim: str, true_claim: str) -> None:
    assert facts_disagreement(false_claim, quote) == "number"
    assert facts_disagreement(true_claim, quote) is None


def test_a_limit_turned_round_in_one_language_is_dropped_too() -> None:
    passage = Passage.of("Children under 12 travel free, and over 65s pay half.")
    assert disagreement("Children over 12 travel free.", passage) == "number"
    assert disagreement("Children under 12 travel free.", passage) is None


@pytest.mark.parametrize(
    "text",
    [
        "未滿18歲者可免費入場。",
        "不滿12歲兒童免費。",
        "不到10分鐘就完成。",
        "紫禁城每天開放。",
        "他不禁笑了。",
        "It is not prohibited to park here.",
    ],
)
def test_words_holding_a_negation_character_or_a_ban_that_say_yes(text: str) -> None:
    assert not negated(text)


@pytest.mark.parametrize(
    ("text", "sides"),
    [
        ("年滿18歲", {"18": {"floor"}}),
        ("12 years old and under", {"12": {"ceiling"}}),
        ("no more than two permits", {"2": {"ceiling"}}),
        ("不少於5天", {"5": {"floor"}}),
        ("18+ only", {"18": {"floor"}}),
        ("12歲兒童", {}),  # a figure with no side is not judged
    ],
)
def test_the_side_a_text_gives_a_figure(text: str, sides: dict[str, set[str]]) -> None:
    assert number_sides(text) == sides


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("Children under 12 may travel free.", {"12"}),
        ("Those under 18 may not enter.", {"18"}),
        ("The office opens on 5 May.", {"5"}),
        ("From 5 May to 7 May the office is shut.", {"5", "7"}),
        ("30 May 2025", {"30", "5", "2025"}),
    ],
)
def test_may_after_a_figure_is_a_month_only_where_a_date_goes_on(
    text: str, figures: set[str]
) -> None:
    assert numbers(text) == figures


def test_an_english_claim_with_may_after_a_figure_stands_on_a_chinese_sentence() -> None:
    # "18 may" was read as the 18th of May: a 5 the sentence lacks dropped a true claim
    assert facts_disagreement("Those under 18 may not enter.", "未滿18歲不得入場。") is None


@pytest.mark.parametrize(
    ("quote", "false_claim", "true_claim"),
    [
        # prohibitions listed with commas say one "no", not two that cancel
        (
            "館內禁止吸菸，禁止飲食。",
            "Smoking is allowed in the hall.",
            "Smoking is not allowed in the hall.",
        ),
        (
            "Smoking is prohibited in the hall, eating is forbidden too.",
            "館內可以吸菸。",
            "館內不可以吸菸。",
        ),
        # a prohibition beside a word whose 無/非 is "un-"/"non-"
        (
            "公園內禁止操作無人機。",
            "Drones may be flown in the park.",
            "Drones may not be flown in the park.",
        ),
        ("非工作人員禁止進入。", "Non-staff may enter.", "Non-staff may not enter."),
        # "not only" is no "only"
        (
            "本店不只收現金，也收信用卡。",
            "The shop only takes cash.",
            "The shop takes cash and cards.",
        ),
        # a verb's "can't" before a figure is a negation, not "under"
        (
            "網路上訂不到3月的門票。",
            "Tickets for March can be booked online.",
            "March tickets cannot be booked online.",
        ),
        # "may not just … but must" negates the verb
        (
            "Residents may not just park anywhere but must use the marked bays.",
            "居民可以隨處停車。",
            "居民不可隨處停車。",
        ),
    ],
)
def test_a_ban_beside_words_holding_a_negation_character_keeps_its_no(
    quote: str, false_claim: str, true_claim: str
) -> None:
    assert facts_disagreement(false_claim, quote) is not None
    assert facts_disagreement(true_claim, quote) is None


@pytest.mark.parametrize(
    ("quote", "claim", "reason"),
    [
        # a limit turned round and negated says the same
        ("每人購票不得超過2張。", "Each person may not buy more than 2 tickets.", None),
        ("停車不得超過2小時。", "Parking up to 2 hours is allowed.", None),
        ("每次停車不超過2小時。", "Each parking session may not exceed 2 hours.", None),
        # ... but not of people by age: adults barred says nothing of minors
        ("18歲以上不得入場。", "Those under 18 may enter.", "number"),
        # a range is no limit turned round; "may" before a comma is the verb
        ("6歲以上未滿12歲兒童半價。", "Children aged 6 and under 12 pay half.", None),
        (
            "未滿12歲兒童由成人陪同可免費入場。",
            "Children under 12 may, with an adult, enter free.",
            None,
        ),
        # a prohibited thing is a thing
        ("違禁品將被沒收。", "Prohibited items will be confiscated.", None),
        ("People who have not reached 18 cannot buy alcohol.", "未滿18歲者不得購買酒類。", None),
    ],
)
def test_limits_read_alike_in_either_wording(quote: str, claim: str, reason: str | None) -> None:
    assert facts_disagreement(claim, quote) == reason
