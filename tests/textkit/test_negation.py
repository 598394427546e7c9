"""Negation: Chinese words that hold 不/无/非 without saying no, the negations that
contain those words, English negations written with any apostrophe, negations joined
by "and"/"nor"/也 (one "no", not two that cancel), and names and prefixes that hold a
negation character."""

from __future__ import annotations

import pytest

from graph.claim_checks import Passage, disagreement
from textkit.facts import disagreement as facts_disagreement
from textkit.polarity import negated


@pytest.mark.parametrize(
    "words",
    ["战争减少了不平等。", "这是不公平的安排。", "该项目存在无数困难。", "未成年人须由家长陪同。"],
)
def test_a_word_holding_a_negation_character_says_no_no(words: str) -> None:
    assert not negated(words)


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        ("考试成绩不公开。", "考试成绩公开。"),
        ("会议记录不公布。", "会议记录公布。"),
        ("这一天并非法定假日。", "这一天是法定假日。"),
        ("申请次数并无限制。", "申请次数有限制。"),
        ("本中心不利用您的资料作营销用途。", "本中心利用您的资料作营销用途。"),
        ("该地区无数据。", "该地区有数据。"),
        ("停车场不便宜。", "停车场便宜。"),
    ],
)
def test_a_negation_containing_such_a_word_still_flips_a_claim(passage: str, claim: str) -> None:
    assert negated(passage) and not negated(claim)
    assert disagreement(claim, Passage.of(passage)) == "polarity"


@pytest.mark.parametrize(
    "passage",
    [
        "Visitors can\u2019t park for free in the car park.",  # the typographic apostrophe
        "Visitors can\u02bct park for free in the car park.",  # the modifier letter
        "Visitors can't park for free in the car park.",
    ],
)
def test_a_negation_written_with_any_apostrophe_flips_a_claim(passage: str) -> None:
    assert negated(passage)
    claim = "Visitors park for free in the car park."
    assert disagreement(claim, Passage.of(passage)) == "polarity"
    assert not negated("It\u2019s free for visitors.")  # an apostrophe alone says no no


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        ("Neither residents nor visitors may park on Main Road.", "Residents may park there."),
        (
            "Refunds are not given and exchanges are not possible after 30 days.",
            "Exchanges are possible after 30 days.",
        ),
        ("No pets and no smoking are allowed in the flat.", "Pets are allowed in the flat."),
        ("The office does not open on Sundays or holidays.", "The office opens on Sundays."),
        ("本店既不收现金也不收支票。", "本店收现金。"),
        ("停車場沒有充電樁也沒有洗手間。", "停車場有充電樁。"),
        ("非會員不得入內，也不得使用設施。", "非會員可以使用設施。"),
        ("退款非即時入帳，也不接受現金。", "退款即時入帳。"),
    ],
)
def test_negations_joined_by_and_nor_or_ye_say_no_once(passage: str, claim: str) -> None:
    # read by parity, two "no"s cancelled: "Residents may park" passed against "Neither
    # residents nor visitors may park"
    assert negated(passage) and not negated(claim)
    assert disagreement(claim, Passage.of(passage)) == "polarity"
    assert facts_disagreement(claim, passage) == "polarity"


@pytest.mark.parametrize(
    "text",
    [
        "No one may enter without a permit.",
        "You cannot apply without an ID card.",
        "Visitors without a ticket and a pass cannot enter.",
        "Sites that don't have a site map and need a login might not be indexed.",
        "沒有預約的人也不能進入。",
        "你不能不去。",
        "非經許可不得進入。",
        "不是不可以。",
        "此證件非本人親自領取不可。",
        "沒有預約也不能進入。",
        "即使沒有預約，也不會被拒絕。",
        "You cannot park here and not pay.",
    ],
)
def test_two_negations_making_a_requirement_still_say_yes(text: str) -> None:
    # "without a permit … may not enter" says a permit is needed, as "You need a permit
    # to enter" does: both read alike, so the translation passes
    assert not negated(text)


@pytest.mark.parametrize(
    "text",
    [
        "他去年搬到莫斯科。",
        "北非的夏天炎熱乾燥。",
        "索非亞是保加利亞的首都。",
        "非營利組織提供免費課程。",
        "請在表格上填寫性別。",
        "該法案被參議院否決。",
        "計畫成功與否取決於天氣。",
        "這是前所未有的成就。",
        "淹沒的道路已重新開放。",
        "不分男女老幼都可以參加。",
        "這是不可或缺的文件。",
        "乙未戰爭爆發於1895年。",
        "此次活動非但免費，還提供午餐。",
        "他的表現非凡。",
        "你非得親自去一趟。",
    ],
)
def test_names_prefixes_and_words_holding_a_negation_character_say_no_no(text: str) -> None:
    assert not negated(text)


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        ("非營利組織不收取會費。", "The non-profit charges a membership fee."),
        ("他沒有搬到莫斯科。", "He moved to Moscow."),
        ("北非的診所不提供這項疫苗。", "Clinics in North Africa offer this vaccine."),
        ("他別無選擇。", "He had a choice."),
        ("此欄非必填。", "This field is required."),
        ("閒人莫入。", "Members of the public may enter."),
        ("乘客別在車廂內飲食。", "Passengers may eat in the carriage."),
        ("會員中途退出沒有退款。", "Members who leave early get a refund."),
        ("我們不分享您的個人資料。", "We share your personal data."),
        ("申請人自己未能到場。", "The applicant attends in person."),
        ("退款非即時入帳。", "Refunds are credited instantly."),
        ("非會員不可使用健身房。", "Non-members may use the gym."),
    ],
)
def test_a_negation_beside_such_a_word_flips_a_translated_claim(passage: str, claim: str) -> None:
    # with 非/莫/别 counted wherever they stood, 非營利 … 不 made two "no"s that cancelled,
    # and the English claim saying yes passed
    assert negated(passage)
    assert facts_disagreement(claim, passage) == "polarity"


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        ("30天後不退款也不換貨。", "Refunds are not given, but exchanges are possible."),
        ("本店既不收现金也不收支票。", "The shop takes cash but not cheques."),
        ("Neither residents nor visitors may park here.", "居民不可在此停車，但訪客可以。"),
        ("本店既不收现金也不收支票。", "本店收现金，不收支票。"),
        (
            "Neither residents nor visitors may park here.",
            "Residents may park here and visitors may not.",
        ),
    ],
)
def test_a_claim_setting_yes_against_no_needs_a_sentence_saying_both(
    passage: str, claim: str
) -> None:
    # read whole, each says no once; the claim's "but … possible" is no part of the quote
    assert negated(passage) and negated(claim)
    assert facts_disagreement(claim, passage) == "polarity"


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        (
            "Refunds are not given and exchanges are not possible after 30 days.",
            "Refunds are not given; exchanges are possible after 30 days.",
        ),
        (
            "Pets are not allowed and smoking is not permitted in the flat.",
            "Pets are not allowed; smoking is permitted in the flat.",
        ),
    ],
)
def test_each_statement_of_a_claim_says_its_own_yes_or_no(passage: str, claim: str) -> None:
    assert disagreement(claim, Passage.of(passage)) == "polarity"


@pytest.mark.parametrize(
    ("passage", "claim", "checked_by_words"),
    [
        ("No refunds are given after 30 days.", "After 30 days, refunds are not given.", True),
        ("No refunds after 30 days.", "After 30 days, refunds are not given.", False),
        (
            "Residents can park free, visitors cannot.",
            "Residents can park free, but visitors cannot.",
            False,
        ),
        ("開車時不得使用手機。", "You may not use your phone while driving.", False),
        ("他不但會說英語，而且會說中文。", "He speaks not only English but also Chinese.", False),
        ("The permit has not yet been issued.", "許可證尚未核發。", False),
        ("Neither residents nor visitors may park here.", "居民和訪客都不可在此停車。", False),
        (
            "Neither residents nor visitors may park here.",
            "Residents and visitors may not park.",
            False,
        ),
        (
            "Refunds are not given and exchanges are not possible after 30 days.",
            "After 30 days, refunds are not given.",
            False,
        ),
        ("可以換貨但不能退款。", "可以換貨但不能退款。", False),
        (
            "Adults pay a fee whereas children do not.",
            "Adults pay a fee whereas children do not.",
            True,
        ),
        ("非會員不可使用健身房。", "Non-members may not use the gym.", False),
    ],
)
def test_a_faithful_claim_keeps_its_yes_or_no(
    passage: str, claim: str, checked_by_words: bool
) -> None:
    if checked_by_words:
        assert disagreement(claim, Passage.of(passage)) is None
    else:
        assert facts_disagreement(claim, passage) is None
