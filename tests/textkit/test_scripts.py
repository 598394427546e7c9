"""Language detection and script and width normalisation."""

from __future__ import annotations

import pytest

from textkit.scripts import detect_language, normalise_width, to_script


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


def test_width_and_script_conversion() -> None:
    assert normalise_width("ＡＢＣ　１２３ ") == "ABC 123"
    assert to_script("护照", "zh-hant") == "護照"
    assert to_script("补办费用为五十元", "zh-hant") == "補辦費用為五十元"  # not 爲
    assert to_script("護照", "zh-hans") == "护照"
    assert to_script("passport", "en") == "passport"


def test_a_renewal_is_no_haircut() -> None:
    # OpenCC alone writes 护照换发 as 護照換髮 (a change of hairstyle)
    assert to_script("护照换发要多少钱？", "zh-hant") == "護照換發要多少錢？"
    assert to_script("我想换发型，头发太长", "zh-hant") == "我想換髮型，頭髮太長"
    assert to_script("换发夹", "zh-hant") == "換髮夾"
