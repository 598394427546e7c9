"""Whether a duration is how long a thing stays valid, asked or stated."""

from __future__ import annotations

import pytest

from textkit.validity import asks_validity, states_validity


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("How long is a parking permit valid?", True),
        ("When does my passport expire?", True),
        ("How many years is a passport valid?", True),
        ("護照效期幾年？", True),
        ("停車許可證有效期多久？", True),
        ("借书证多久会过期？", True),
        # an interview lasts, a reading room is used, a book falls due: no validity
        ("How long does the interview last?", False),
        ("How long can I use the reading room?", False),
        ("借的书多久到期？", False),
        ("How long does it take to renew a passport that will expire soon?", False),
        ("How long does it take to get a parking permit?", False),
        # an expired permit renewed, a valid ID brought: how long renewing takes
        ("How long does it take to renew an expired parking permit?", False),
        ("How long does processing take if I bring a valid ID?", False),
        ("When is the last day to apply, and how long does it take?", False),
        ("書可以借多久？", False),
    ],
)
def test_a_question_asking_how_long_a_thing_stays_valid(question: str, asked: bool) -> None:
    assert asks_validity(question) is asked


@pytest.mark.parametrize(
    ("sentence", "stated"),
    [
        ("每張許可證每年收費新臺幣 1,200 元，有效期一年，期滿前三十天可以續辦。", True),
        ("The card is valid for 12 months.", True),
        ("A permit lasts twelve months.", True),
        ("The licence expires after 21 days.", True),
        ("申請後約七個工作天核發。", False),
        ("Processing takes 4 working days if you bring a valid ID.", False),
        ("借期二十一天，到期前可以在线续借一次。", False),  # 到期: the loan falls due
        ("为有效利用馆藏，每次借期为二十一天。", False),  # 有效利用: effective use
        ("The final interview takes 2 days.", False),
        ("Passports are issued for 10 years.", True),
        ("護照效期十年", True),
        ("Permits expire one year after issue.", True),
        ("自核發日起一年內有效", True),
        ("申請期限為三十天", False),  # how long one may apply
        ("過期每天罰款五元", False),  # overdue
        ("Tickets are issued for 30 minutes before closing.", False),
        ("The room can be used for two hours.", False),
        ("One colour photo taken in the last six months.", False),
    ],
)
def test_a_sentence_stating_how_long_a_thing_stays_valid(sentence: str, stated: bool) -> None:
    assert states_validity(sentence) is stated
