"""Previews at Telegram's pace: a text the pace holds back is shown when it allows, not lost."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from bot.telegram.pace import ChatPacer
from bot.telegram.preview import TelegramPreview
from graph.events import Token
from tests.support.fake_telegram import TOKEN, FakeTelegram

CHAT = 5001


@pytest.fixture
async def bot() -> AsyncIterator[tuple[Bot, FakeTelegram]]:
    fake = FakeTelegram().start()
    client = Bot(TOKEN, base_url=f"{fake.url}/bot")
    await client.initialize()
    try:
        yield client, fake
    finally:
        await client.shutdown()
        fake.stop()


async def _shown_within(fake: FakeTelegram, seconds: float, count: int = 1) -> list[str]:
    """The previews once `count` arrived (a loaded machine answers late), or what there is
    after `seconds`."""
    for _ in range(int(seconds / 0.05)):
        if len(_previews(fake)) >= count:
            break
        await asyncio.sleep(0.05)
    return _previews(fake)


def _previews(fake: FakeTelegram) -> list[str]:
    return [
        str(p.get("text"))
        for m, p in fake.calls
        if m in ("sendMessageDraft", "editMessageText", "sendMessage")
    ]


@pytest.mark.parametrize("drafts", [True, False])
async def test_a_one_sentence_answer_held_by_the_pace_is_shown_when_it_allows(
    bot: tuple[Bot, FakeTelegram], drafts: bool
) -> None:
    client, fake = bot
    pacer = ChatPacer(1.0)
    responder = TelegramPreview(client, CHAT, pacer, drafts=drafts, shown=None if drafts else 7)
    pacer.done(CHAT, preview=True)  # the previous answer's last preview went out just now
    await responder.show(Token("Renewal costs 1,300 dollars [1]."))
    assert _previews(fake) == []  # one preview a second per chat
    # no more text comes: the one sentence still shows, once the pace allows
    shown = await _shown_within(fake, 3.0)
    assert shown == ["Renewal costs 1,300 dollars [1]. …"]  # a preview, marked so
    await responder.close()


async def test_the_reply_cancels_a_preview_still_owed(bot: tuple[Bot, FakeTelegram]) -> None:
    client, fake = bot
    pacer = ChatPacer(1.0)
    responder = TelegramPreview(client, CHAT, pacer, drafts=True)
    pacer.done(CHAT, preview=True)
    await responder.show(Token("Renewal costs 1,300 dollars [1]."))
    await responder.close()  # the final answer is on its way: no draft after it
    await asyncio.sleep(1.3)
    assert _previews(fake) == []


async def test_a_chat_held_by_a_429_gets_no_first_preview_until_the_hold_ends(
    bot: tuple[Bot, FakeTelegram],
) -> None:
    client, fake = bot
    pacer = ChatPacer(1.0)
    responder = TelegramPreview(client, CHAT, pacer, drafts=False)  # a group: no drafts
    pacer.hold(CHAT, 0.8)  # Telegram said 429, retry after 0.8 s
    await responder.show(Token("Renewal costs 1,300 dollars [1]."))
    await asyncio.sleep(0.5)
    assert _previews(fake) == []
    assert await _shown_within(fake, 3.0) == ["Renewal costs 1,300 dollars [1]. …"]
    await responder.close()


@pytest.mark.parametrize("drafts", [True, False])
async def test_the_first_text_is_not_held_by_the_earlier_answers_final_message(
    bot: tuple[Bot, FakeTelegram], drafts: bool
) -> None:
    client, fake = bot
    pacer = ChatPacer(1.0)
    pacer.done(CHAT, preview=True)  # the earlier answer's last preview...
    await asyncio.sleep(1.0)
    pacer.done(CHAT)  # ...then its final message, sent just now; the next question came
    responder = TelegramPreview(client, CHAT, pacer, drafts=drafts)
    await responder.show(Token("Renewal costs 1,300 dollars [1]."))
    assert _previews(fake) == ["Renewal costs 1,300 dollars [1]. …"]  # at once
    # the next preview of it waits the interval, as every preview does
    await responder.show(Token(" It is paid at the counter."))
    assert len(_previews(fake)) == 1
    shown = await _shown_within(fake, 3.0, count=2)
    assert shown[-1] == "Renewal costs 1,300 dollars [1]. It is paid at the counter. …"
    await responder.close()


async def test_two_answers_first_drafts_in_one_chat_keep_the_pace(
    bot: tuple[Bot, FakeTelegram],
) -> None:
    client, fake = bot
    pacer = ChatPacer(1.0)
    first = TelegramPreview(client, CHAT, pacer, drafts=True)
    second = TelegramPreview(client, CHAT, pacer, drafts=True)
    # the second's first text comes while the first's draft is still on its way
    await asyncio.gather(first.show(Token("Opens at 9 [1].")), second.show(Token("Free [2].")))
    assert _previews(fake) == ["Opens at 9 [1]. …"]
    shown = await _shown_within(fake, 3.0, count=2)
    assert shown == ["Opens at 9 [1]. …", "Free [2]. …"]  # owed, not dropped
    calls = zip(fake.calls, fake.times, strict=True)
    drafts = [at for (method, _), at in calls if method == "sendMessageDraft"]
    assert drafts[1] - drafts[0] >= 1.0  # one preview a second per chat
    await first.close()
    await second.close()


async def test_a_first_preview_message_on_its_way_is_not_sent_twice(
    bot: tuple[Bot, FakeTelegram],
) -> None:
    client, fake = bot
    pacer = ChatPacer(1.0)
    responder = TelegramPreview(client, CHAT, pacer, drafts=False)  # a group: edits
    fake.rate_limited["sendMessage"] = 1  # the first preview is told to wait a second
    await responder.show(Token("Opens at 9 [1]."))
    await responder.show(Token(" Closes at 5 [1]."))  # owed until the hold ends
    for _ in range(100):  # the owed preview message is on its way...
        if responder._first_sender is not None:
            break
        await asyncio.sleep(0.02)
    await responder.show(Token(" Free."))  # ...when more text comes
    await asyncio.sleep(1.5)
    sends = [p for m, p in fake.calls if m == "sendMessage"]
    assert len(sends) == 2  # the refused one and one preview message, not a second
    await responder.close()
