"""Keyword tokens."""

from __future__ import annotations

from textkit.tokens import keyword_tokens


def test_keyword_tokens_are_script_neutral() -> None:
    assert keyword_tokens("申請護照需要什麼文件") == keyword_tokens("申请护照需要什么文件")
    assert "护照" in keyword_tokens("護照")


def test_keyword_tokens_fold_width_and_case_and_drop_punctuation() -> None:
    assert keyword_tokens("ＣＯＶＩＤ－１９ Vaccine！") == keyword_tokens("covid-19 vaccine")
    assert all(t.strip("!！?？,，。") for t in keyword_tokens("你好，世界！"))
