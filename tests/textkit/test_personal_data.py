"""The personal-data detector that screens documents bound for public (and masks questions)."""

from __future__ import annotations

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
