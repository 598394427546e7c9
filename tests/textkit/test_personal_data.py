"""The personal-data detector that screens documents bound for public (and masks questions)."""

from __future__ import annotations

from graph.privacy import mask_sensitive
from textkit.personal_data import Finding, find, mask_value, scan


def test_find_reports_each_value_once_under_its_kind_inside_chinese_text() -> None:
    text = (
        "申請人王小明，身分證A123456789，手機0912-345-678，"
        "信箱wang.xm@example.com.tw，港澳居民H123456(7)，身份证110105199001011234。"
    )
    assert find(text) == [
        ("email", "wang.xm@example.com.tw"),
        ("id", "A123456789"),
        ("id", "110105199001011234"),
        ("id", "H123456(7)"),
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
