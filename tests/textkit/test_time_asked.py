"""Which questions ask the hours of a place, and which use "open" or "close" otherwise."""

from __future__ import annotations

import pytest

from textkit.scripts import plain
from textkit.time_asked import asks_time


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What are the opening hours?", True),
        ("Is the pool open?", True),
        ("Is the library open on Sunday?", True),
        ("Is the office open late on Thursdays?", True),
        ("Is the museum closed Mondays?", True),
        ("Are you open 24 hours?", True),
        ("Is the centre open year round?", True),
        ("What time does the office close?", True),
        ("Is the library open to the public on holidays?", True),
        ("Is the market open every day?", True),
        ("When does the museum close to the public?", True),
        ("Is the museum open evenings?", True),
        ("Is the library closed Good Friday?", True),
        ("Is the clinic open past 6pm?", True),
        ("Is the library open to the public on holidays?", True),
        ("圖書館今天開放嗎", True),
        ("閉館時間", True),
        ("星期一休館嗎", True),
        ("星期日開唔開", True),
        ("图书馆星期天开吗？", True),
        ("市民服務中心幾點開門？", True),
        # the verb acts on a thing
        ("Can I open an account online?", False),
        # "open" or "closed" is a thing's kind
        ("How did the open letter affect the vote?", False),
        ("What is an open-source licence?", False),
        ("What does open market mean?", False),
        # who may take part, or a case's state
        ("Is the course open to non-residents?", False),
        ("Is my complaint closed?", False),
        ("Are applications still open?", False),
        ("Is the course open for registration?", False),
        # an event, whose time is a date
        ("What caused the closing of the port?", False),
        # near
        ("How close is the office to the station?", False),
        ("Is the office close to the station?", False),
        # a reason
        ("Why was the gallery closed?", False),
        ("Why did the mine close?", False),
        ("为什么图书馆关门了？", False),
    ],
)
def test_open_and_close_ask_hours_only_as_a_places_state(question: str, asks: bool) -> None:
    assert asks_time(plain(question)) is asks
