"""The personal-data detector that screens documents bound for public (and masks questions)."""

from __future__ import annotations

import pytest

from graph.privacy import mask_sensitive
from textkit.personal_data import HEADING, TITLE, Finding, find, mask_value, scan


def test_find_reports_each_value_once_under_its_kind_inside_chinese_text() -> None:
    text = (
        "申請人王小明，身分證A123456789，手機0912-345-678，"
        "信箱wang.xm@example.com.tw，港澳居民H123456(2)，身份证110105199001011232。"
    )
    assert find(text) == [
        ("email", "wang.xm@example.com.tw"),
        ("id", "A123456789"),
        ("id", "110105199001011232"),
        ("id", "H123456(2)"),
        ("phone", "0912-345-678"),
    ]
    # the masking of questions finds the same things
    assert mask_sensitive(text).count("[ID]") == 3 and "[EMAIL]" in mask_sensitive(text)


def test_form_codes_case_numbers_and_plain_prose_are_not_personal_data() -> None:
    assert find("Form PK-01 and case 2024-0012 cost 1,300 dollars; see section 12.") == []
    assert scan([("No personal data here.\n", None, None)]) is None


def test_scan_counts_per_kind_and_says_where_masked() -> None:
    pages = [
        ("Contact: call 555-1234\n", 1, None),
        ("ok\nmail a.person@example.org and b@example.org\n", 2, "Staff"),
    ]
    found = scan(pages)
    assert found is not None
    assert found.counts == {"phone": 1, "email": 2} and found.total == 3
    assert found.summary() == "email=2, phone=1"
    assert found.examples == (
        Finding("phone", "55****34", 1, 1),
        Finding("email", "a*******@example.org", 3, 2),  # line 1 of page 2 is its heading
        Finding("email", "b*@example.org", 3, 2),
    )


def test_mask_value_never_shows_the_middle() -> None:
    assert mask_value("A123456789") == "A1******89"
    assert mask_value("1234") == "****"
    assert mask_value("x@example.org") == "x*@example.org"


def test_full_width_forms_are_found_and_masked_where_they_stand() -> None:
    question = (
        "我的身分證Ａ１２３４５６７８９，電話０９１２－３４５－６７８，"
        "信箱wang＠example.com，市話（02）2720-8889。"
    )
    assert find(question) == [
        ("email", "wang＠example.com"),
        ("id", "Ａ１２３４５６７８９"),
        ("phone", "０９１２－３４５－６７８"),
        ("phone", "（02）2720-8889"),
    ]
    # everything but the data stays as the user wrote it, full-width punctuation included
    assert mask_sensitive(question) == ("我的身分證[ID]，電話[PHONE]，信箱[EMAIL]，市話[PHONE]。")
    assert mask_sensitive("全形　空白：ｆｅｅ？") == "全形　空白：ｆｅｅ？"


def test_a_card_number_counts_in_a_document_only_if_it_passes_luhn() -> None:
    text = "ISBN 978-986-123-4567, ref 1234567890123456, card 4111 1111 1111 1111."
    assert find(text) == [("card", "4111 1111 1111 1111")]
    assert scan([("ISBN 9789861234567\nOrder 2024031500012345\n", None, None)]) is None
    # a question's card-shaped number is masked either way: masking it costs nothing
    assert mask_sensitive("ref 1234567890123456") == "ref [CARD]"


def test_headings_and_the_title_are_scanned_and_named() -> None:
    blocks = [("Intro\n", None, None), ("Call the desk.\n", None, "Contact 0912-345-678")]
    found = scan(blocks, titles=("王小明_A123456789", "王小明_A123456789.pdf"))
    assert found is not None
    assert found.counts == {"id": 1, "phone": 1}  # the ID in title and file name counts once
    assert found.examples == (
        Finding("id", "A1******89", 0, None, TITLE),
        Finding("phone", "09********78", 3, None, HEADING),
    )
    assert scan([("plain\n", None, "Fees")], titles=("Passport fees", "fees.pdf")) is None


def _flagged(text: str) -> dict[str, int]:
    found = scan([(text, None, None)])
    return found.counts if found is not None else {}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("請洽承辦人，電話0912-\n345-678，週一至週五。", "phone"),
        ("Write to jane.roe@\nexample.com for a copy.", "email"),
        ("身分證字號A12345\n6789，請核對。", "id"),
        ("mail jane.roe@exam-\nple.com today", "email"),  # hyphenation at the break
        ("mail jane.roe@exam\u00ad\nple.com today", "email"),  # a soft hyphen
        ("reach us: 0912-345- \t\n   678 now", "phone"),  # spaces extraction left at the break
        ("reach us: 0912 345\n678 now", "phone"),
        ("card 4111 1111\n1111 1111 was charged", "card"),  # the break took a space
        ("身份证11010519900\n1011232", "id"),
        ("Call +886 912\n345 678 anytime", "phone"),
        ("電話：０９１２－\n３４５－６７８", "phone"),  # full-width forms
    ],
)
def test_a_value_wrapped_across_a_line_break_is_found(text: str, kind: str) -> None:
    assert _flagged(text) == {kind: 1}
    assert _flagged(text.replace("\n", "\n\n")) == {}  # a paragraph break is not a wrap


def test_a_wrapped_value_is_reported_on_the_line_it_starts_on() -> None:
    found = scan([("Intro\nCall 0912-\n345-678.\n", 3, None)])
    assert found is not None and found.examples == (Finding("phone", "09********78", 2, 3),)
    # each line's own values are not found again across its breaks
    assert _flagged("a@example.org\nb@example.org\n0912-345-678\n02-2345-6789") == {
        "email": 2,
        "phone": 2,
    }


@pytest.mark.parametrize(
    "text",
    [
        "Published 1998. ISBN 0786904070.",
        "ISBN-10: 0-7869-0407-0; ISBN-13: 978-0-7869-0407-2",
        "9780786904075 and 978 0 7869 0407 5",  # an ISBN-13 that also passes Luhn
        "該套紙鈔冠號為AA000001至AA00000001號，序號00000001號起。",
        "中華民國國幣券第00000001號",
        "He served from 1990-2005 and again\nfrom 2008-\n2012.",
        "Population: 1 234 567 890 123 people in 2020.",
        "見第12\n34頁。",
        "Coordinates 25.0330, 121.5654; elevation 0912 m.",
        "The 1990\n2005 seasons were played at home.",
        "Order 0000 0000 0000 0000 shipped",
        "from 1980 to\n2000 1234",
    ],
)
def test_encyclopedic_numbers_are_not_personal_data(text: str) -> None:
    assert _flagged(text) == {}


def test_ids_count_in_a_document_only_with_their_check_digits() -> None:
    assert find("A123456789 B123456789 A123456788") == [("id", "A123456789")]
    assert find("resident certificate A800000014") == [("id", "A800000014")]
    assert find("身份证110105199001011232") == [("id", "110105199001011232")]
    # a wrong check character, and an impossible birth date (month 70)
    assert find("110105199001011234 or 199570827308580866") == []
    assert find("HKID A123456(3), not A123456(4)") == [("id", "A123456(3)")]
    # masking a question still takes the shapes alone
    assert mask_sensitive("ID B123456789") == "ID [ID]"


def test_phone_numbers_have_the_digits_of_a_real_number() -> None:
    assert find("市話02-2345-6789、037-123456、手機0912345678、(02) 2720-8889") == [
        ("phone", "02-2345-6789"),
        ("phone", "037-123456"),
        ("phone", "0912345678"),
        ("phone", "(02) 2720-8889"),
    ]
    assert find("序列00000001、00-1234-5678、0 123 456") == []
    assert find("手机13812345678，香港+852 2345 6789") == [
        ("phone", "+852 2345 6789"),
        ("phone", "13812345678"),
    ]
