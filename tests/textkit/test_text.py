"""Language detection, script normalisation and keyword tokens."""

from __future__ import annotations

import pytest

from storage.text import (
    detect_language,
    keyword_tokens,
    normalise_width,
    to_script,
    tsquery_literal,
    tsvector_literal,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How do I renew my passport?", "en"),
        ("如何申請護照？", "zh-hant"),
        ("怎么申请护照？", "zh-hans"),
        ("我想問 passport 的事情", "zh-hant"),
        ("Please call 1999 about 停車", "en"),
    ],
)
def test_detect_language(text: str, expected: str) -> None:
    assert detect_language(text) == expected


def test_keyword_tokens_are_script_neutral() -> None:
    assert keyword_tokens("申請護照需要什麼文件") == keyword_tokens("申请护照需要什么文件")
    assert "护照" in keyword_tokens("護照")


def test_keyword_tokens_fold_width_and_case_and_drop_punctuation() -> None:
    assert keyword_tokens("ＣＯＶＩＤ－１９ Vaccine！") == keyword_tokens("covid-19 vaccine")
    assert all(t.strip("!！?？,，。") for t in keyword_tokens("你好，世界！"))


def test_width_and_script_conversion() -> None:
    assert normalise_width("ＡＢＣ　１２３ ") == "ABC 123"
    assert to_script("护照", "zh-hant") == "護照"
    assert to_script("补办费用为五十元", "zh-hant") == "補辦費用為五十元"  # not 爲
    assert to_script("護照", "zh-hans") == "护照"
    assert to_script("passport", "en") == "passport"


def test_tsvector_and_tsquery_literals_escape_quotes() -> None:
    assert tsvector_literal(["it's", "a", "it's"]) == "'it''s':1,3 'a':2"
    assert tsquery_literal(["o'neil", "b"]) == "'o''neil' | 'b'"
