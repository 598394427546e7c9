"""Telegram's look of an answer's lines: a two-part reply's part headings stay lines
above their items, items are `• ` lines, sources are named in the reader's script."""

from __future__ import annotations

from bot.telegram.render import html_messages, sources
from tests.support.listed_answer import TWO_PART


def test_part_headings_stay_lines_above_their_bulleted_items() -> None:
    [message] = html_messages(TWO_PART)
    assert message.splitlines() == [
        "Here is what our documents say:",
        "On &quot;How much does it cost to renew a passport&quot;:",
        "• The fee is 1,300 dollars. [1]",
        "On &quot;what documents do I need to bring&quot;:",
        "• Bring your old passport &amp; a photo. [1]",
    ]


def test_sources_are_named_by_their_title_in_the_readers_script() -> None:
    cited = [{"n": 1, "document": "停車許可證", "title": "停车许可证", "page": None, "url": None}]
    shown = sources(cited, "zh-hans")
    assert "[1] 停车许可证" in shown and "停車許可證" not in shown
