"""Facts a claim and its quote must share across languages: ordinals."""

from __future__ import annotations

import pytest

from textkit.facts import disagreement


@pytest.mark.parametrize(
    ("claim", "quote", "reason"),
    [
        # a Chinese ordinal stands on the English ordinal word it translates
        (
            "巴西是全球第二大的大豆生產國。",
            "Brazil is the second-largest producer of soybeans.",
            None,
        ),
        (
            "巴西是全球第三大的大豆生產國。",
            "Brazil is the second-largest producer of soybeans.",
            "number",
        ),
        (
            "這是特斯拉在美國獲得的第一批專利。",
            "These were the first patents issued to Tesla.",
            None,
        ),
        # ... and excuses no other number of the claim
        (
            "The fee is 3 dollars for the third copy.",
            "The fee is 5 dollars for the third copy.",
            "number",
        ),
        (
            "巴西有兩個港口，是第二大出口國。",
            "Brazil, with three ports, is the second-largest exporter.",
            "number",
        ),
        ("有兩個機構。", "It is the second body.", "number"),
        # "a second" is a unit of time, no ordinal
        ("巴西是第二大出口國。", "Wait a second: Brazil is the largest exporter.", "number"),
        # "a second factory" is an ordinal; a figure written with separators too
        ("公司在2019年開設了第二家工廠。", "In 2019 the company opened a second factory.", None),
        ("第1,000位客戶獲得獎品。", "The 1,000th customer won a prize.", None),
        ("第三十秒時開始。", "It starts after thirty seconds.", None),
        # a month read in the claim as written
        ("It was filed in May 2020.", "It was filed in June 2020.", "number"),
    ],
)
def test_an_ordinal_across_languages(claim: str, quote: str, reason: str | None) -> None:
    assert disagreement(claim, quote) == reason
