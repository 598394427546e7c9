"""Slack's look of an answer's lines: a two-part reply's part headings stay lines above
their items, items are `• ` lines, sources are named in the reader's script."""

from __future__ import annotations

from bot.slack.blocks import mrkdwn, sources_block
from tests.support.listed_answer import TWO_PART


def test_part_headings_stay_lines_above_their_bulleted_items() -> None:
    assert mrkdwn(TWO_PART).splitlines() == [
        "Here is what our documents say:",
        'On "How much does it cost to renew a passport":',
        "• The fee is 1,300 dollars. [1]",
        'On "what documents do I need to bring":',
        "• Bring your old passport &amp; a photo. [1]",
    ]


def test_sources_are_named_by_their_title_in_the_readers_script() -> None:
    cited = [{"n": 1, "document": "停車許可證", "title": "停车许可证", "page": None, "url": None}]
    block = sources_block(cited, "zh-hans")
    assert block is not None
    text = block["elements"][0]["text"]
    assert "[1] 停车许可证" in text and "停車許可證" not in text
