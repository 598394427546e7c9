"""Telegram answers that cannot be lost: the inbox, the outbox, honest acks, one flood stalls
only itself.

The real PTB listeners and client against the fake Bot API, on the embedded
Postgres: 429s on a final answer, a chat held by `retry_after` beside another
chat, users over the rate limit (messages, commands and buttons), a delivery
resumed after its worker died, and the webhook's and the poller's
acknowledgements when the core could not take an update.
"""

from __future__ import annotations

import asyncio
import html
import itertools
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import text
from telegram import Update

from bot.core.delivery.envelopes import encode
from bot.core.serving import Accepted, ShuttingDownError
from storage.db import Database
from storage.embeddings import Embedder
from storage.repositories import inbox as inbox_repo
from tests.support.core_fixtures import message, until, window_with_time_left
from tests.support.fake_telegram import FakeTelegram, callback, group_text, private_text
from tests.telegram.test_telegram import (
    TelegramHarness,
    answered,
    answers,
    docs,
    fake_tg,
    inbox_status,
    keyboard,
    outbox_left,
    settled,
    start_harness,
    stop_harness,
    tg,
)
from textkit.catalog import say

__all__ = ["docs", "fake_tg", "tg"]  # fixtures used here, defined with the adapter's tests

QUESTION = "How much does an adult passport renewal cost?"


@pytest.fixture
async def one(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> AsyncIterator[TelegramHarness]:
    """One webhook-mode worker (no LLM: answers come at once, from the documents)."""
    h = await start_harness(database_url, embedder, fake_tg)
    yield h
    await stop_harness(h)


async def lease_run_out(db: Database, delivery_id: str, timeout: float = 10.0) -> None:
    """Wait until the delivery's lease is over by the database's clock (the sweep's), or a
    sweep already took it again: a running worker's sweeper may come first (its second
    attempt), and it leases the delivery anew, so its lease is no longer over."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        async with db.sessions() as session:
            over = await session.scalar(
                text(
                    "SELECT lease_until < now() OR attempts > 1 OR status <> 'claimed'"
                    " FROM processed_events WHERE platform = 'telegram' AND event_id = :id"
                ),
                {"id": delivery_id},
            )
        if over:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the lease of {delivery_id} never ran out")


# --- 429s go to the outbox, off the turn -----------------------------------------------------


async def test_four_429s_on_a_final_answer_then_it_is_delivered_once(
    one: TelegramHarness, fake_tg: FakeTelegram, db: Database
) -> None:
    chat = 3101
    fake_tg.throttle("sendMessage", 1, times=4, chat_id=chat)
    await one.post(private_text(3100, chat, QUESTION))
    # the turn is over (its slot and lock free) while the outbox still retries
    await until(lambda: fake_tg.refused("sendMessage", chat) <= 2, 20)
    assert await inbox_status(db, f"{chat}:31000") == "done"
    assert not answers(fake_tg, chat)
    [final] = await answered(fake_tg, chat)
    assert "1,300 dollars" in final["text"]
    attempts = [t for _, t in fake_tg.timed({"sendMessage"}, chat)]
    assert len(attempts) == 5  # four refused, then the one that arrived
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    assert min(gaps) >= 0.95, gaps  # retry_after honoured each time
    await settled(db, chat, f"{chat}:31000")
    shown = [m for m in fake_tg.sent if m["chat"]["id"] == chat]
    assert len(shown) == 1 and len(answers(fake_tg, chat)) == 1  # exactly once
    async with db.sessions() as session:
        row = (
            await session.execute(
                text("SELECT status, attempts, trace_id IS NOT NULL FROM outbox WHERE chat = :c"),
                {"c": str(chat)},
            )
        ).one()
    assert tuple(row) == ("done", 5, True)


async def test_four_429s_on_the_final_edit_of_a_streamed_answer(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram, db: Database
) -> None:
    from tests.telegram.test_telegram import llm_harness

    group = -3201
    words = "An adult passport renewal costs 1,300 dollars and takes four working days [1]. " * 2

    def final_edit(params: dict[str, Any]) -> bool:  # the one with the vote buttons
        return any(str(b.get("callback_data", "")).startswith("fb:") for b in keyboard(params))

    fake_tg.throttle("editMessageText", 1, times=4, chat_id=group, match=final_edit)
    async with llm_harness(database_url, embedder, fake_tg, words, pace=0.05) as h:
        await h.post(group_text(3200, group, 7, f"@ragbot_test_bot {QUESTION}"))
        [final] = await answered(fake_tg, group)
        assert "1,300 dollars" in final["text"]
        finals = [p for p in fake_tg.of("editMessageText", group) if final_edit(p)]
        assert len(finals) == 5 and len({p["message_id"] for p in finals}) == 1
        [preview] = fake_tg.of("sendMessage", group)  # the streamed message, edited in place
        assert int(preview["reply_parameters"]["message_id"]) == 32000
        await settled(db, group, f"{group}:32000")
        assert len(fake_tg.of("sendMessage", group)) == 1  # no second copy


async def test_a_chat_held_by_retry_after_does_not_slow_another_chats_answer(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    # one turn at a time: a turn that waited out a 429 would hold everyone's slot
    h = await start_harness(database_url, embedder, fake_tg, MAX_CONCURRENT_TURNS=1)
    try:

        async def time_to_answer(update_id: int, chat: int) -> float:
            started = time.monotonic()
            await h.post(private_text(update_id, chat, QUESTION))
            await answered(fake_tg, chat)
            return time.monotonic() - started

        alone = await time_to_answer(3300, 3301)  # chat B, nobody held
        held_chat = 3302
        fake_tg.throttle("sendMessage", 6, chat_id=held_chat)
        await h.post(private_text(3310, held_chat, QUESTION))  # chat A: told to wait 6 s
        await until(lambda: bool(fake_tg.of("sendMessage", held_chat)))
        refused_at = time.monotonic()
        beside = await time_to_answer(3320, 3303)  # chat B again, while A is held
        assert beside < 2.5 and beside < alone + 1.5, (alone, beside)
        assert not answers(fake_tg, held_chat)  # A still waits its retry_after…
        [late] = await answered(fake_tg, held_chat)  # …and then gets its answer, once
        assert time.monotonic() - refused_at >= 5.9 and "1,300 dollars" in late["text"]
    finally:
        await stop_harness(h)


# --- the rate limit covers messages, commands and buttons ------------------------------------


async def test_over_the_limit_one_notice_per_window_and_commands_and_buttons_count(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram, db: Database
) -> None:
    h = await start_harness(database_url, embedder, fake_tg, RATE_LIMIT_PER_MINUTE=2)
    notice = say("rate_limited", "en", limit=2)  # an alert's plain text
    notice_html = html.escape(notice)  # in a message
    try:
        flooder = 3401
        await window_with_time_left(15)
        for n in range(5):
            await h.post(private_text(3400 + n, flooder, f"{QUESTION} ({n})"))
        await until(lambda: len(fake_tg.of("sendMessage", flooder)) >= 3)
        # every message handled (answered, told, or silent) and its sends made
        await settled(db, flooder, *(f"{flooder}:{(3400 + n) * 10}" for n in range(5)))
        texts = [p["text"] for p in fake_tg.of("sendMessage", flooder)]
        assert len(answers(fake_tg, flooder)) == 2 and texts.count(notice_html) == 1, texts
        assert len(texts) == 3
        # over the limit, /start and a button press are refused silently
        await h.post(private_text(3410, flooder, "/start"))
        final = answers(fake_tg, flooder)[0]
        shown = next(m for m in fake_tg.sent if m["chat"]["id"] == flooder)
        vote = next(b["callback_data"] for b in keyboard(final) if b["callback_data"][-1] == "1")
        await h.post(
            callback(3411, flooder, vote, {**shown, "reply_markup": final["reply_markup"]})
        )
        await until(lambda: bool(fake_tg.of("answerCallbackQuery")))
        await settled(db, flooder)  # a reply would be in the outbox once the update was taken
        assert len(fake_tg.of("sendMessage", flooder)) == 3  # no welcome
        assert [p.get("text") for p in fake_tg.of("answerCallbackQuery")] == [None]
        # a user whose commands and presses take them over the limit: the press is refused
        # with the notice (an alert), once; later messages get nothing
        clicker = 3402
        await window_with_time_left(15)
        await h.post(private_text(3420, clicker, "/start"))  # 1
        await h.post(private_text(3421, clicker, QUESTION))  # 2
        [mine] = await answered(fake_tg, clicker)
        mine_shown = next(
            m for m in fake_tg.sent if m["chat"]["id"] == clicker and "1,300" in m["text"]
        )
        pressed = {**mine_shown, "reply_markup": mine["reply_markup"]}
        await h.post(callback(3422, clicker, vote, pressed))  # 3: over
        await h.post(private_text(3423, clicker, "/lang"))  # 4: silent
        await h.post(private_text(3424, clicker, QUESTION))  # 5: silent
        await until(lambda: len(fake_tg.of("answerCallbackQuery")) >= 2)
        await settled(db, clicker, f"{clicker}:34210", f"{clicker}:34240")
        alerts = [p for p in fake_tg.of("answerCallbackQuery") if p.get("show_alert")]
        assert [p["text"] for p in alerts] == [notice]
        welcome = say("telegram:welcome", "en")
        texts = [p["text"] for p in fake_tg.of("sendMessage", clicker)]
        assert texts[0] == welcome and len(texts) == 2 and notice_html not in texts, texts
        async with db.sessions() as session:
            votes = (await session.execute(text("SELECT count(*) FROM feedback"))).scalar_one()
        assert votes == 0  # no refused press was counted as a vote
    finally:
        await stop_harness(h)


# --- a worker that died: another one finishes its half-streamed message ----------------------


async def test_a_resumed_delivery_edits_the_dead_workers_preview_into_the_answer(
    one: TelegramHarness, fake_tg: FakeTelegram, db: Database
) -> None:
    chat = 3501
    # the dead worker had streamed a preview in edit mode (drafts refused in this chat)
    half = await one.adapter.app.bot.send_message(chat, "An adult passport renewal …")
    route = {"chat_id": chat, "reply_to": None, "group": False, "drafts": True}
    question = message(
        QUESTION,
        platform="telegram",
        user=str(chat),
        conv=str(chat),
        delivery=f"{chat}:35000",
        direct=True,
        route=route,
    )
    async with db.transaction() as session:  # accepted by a worker whose lease has run out
        assert await inbox_repo.accept(
            session, "telegram", question.delivery_id, encode(question), 0
        )
        await inbox_repo.record_posted(
            session, "telegram", question.delivery_id, {"message_id": half.message_id}
        )
    await lease_run_out(db, question.delivery_id)
    await one.worker.core.inbox.sweep()  # (or the sweeper's own round, whichever comes first)
    [final] = await answered(fake_tg, chat)
    assert int(final["message_id"]) == half.message_id and "1,300 dollars" in final["text"]
    await settled(db, chat, question.delivery_id)  # nothing left that could send again
    sent = fake_tg.of("sendMessage", chat)
    assert len(sent) == 1 and sent[0]["text"].startswith("An adult passport renewal")
    assert not fake_tg.of("sendMessageDraft", chat)  # the message exists: no draft on top
    assert await inbox_status(db, question.delivery_id) == "done"


# --- acknowledgements: only what the core took ------------------------------------------------


async def test_webhook_answers_503_when_the_update_is_not_taken_and_200_once_it_is(
    tg: list[TelegramHarness],
    fake_tg: FakeTelegram,
    monkeypatch: pytest.MonkeyPatch,
    db: Database,
) -> None:
    first, second = tg
    core = first.worker.core
    accept, first_delivery = core.accept, core.first_delivery

    async def database_down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionRefusedError("the database is down")

    question = private_text(3600, 3601, QUESTION)
    start = private_text(3602, 3602, "/start")
    monkeypatch.setattr(core, "accept", database_down)
    monkeypatch.setattr(core, "first_delivery", database_down)
    assert (await first.post(question)).status_code == 503
    assert (await first.post(start)).status_code == 503
    # nothing was taken: no delivery in the inbox, nothing in the outbox, nothing sent
    assert await inbox_status(db, "3601:36000") is None
    assert not await outbox_left(db, 3601) and not await outbox_left(db, 3602)
    assert not fake_tg.of("sendMessage", 3601) and not fake_tg.of("sendMessage", 3602)
    monkeypatch.setattr(core, "accept", accept)
    monkeypatch.setattr(core, "first_delivery", first_delivery)
    # Telegram delivers again: taken now
    assert (await first.post(question)).status_code == 200
    assert (await first.post(start)).status_code == 200
    await answered(fake_tg, 3601)
    await until(lambda: bool(fake_tg.of("sendMessage", 3602)))
    # a message for nobody is taken too (nothing to answer)
    ignored = group_text(3603, -3600, 7, "not for the bot")
    assert (await first.post(ignored)).status_code == 200
    # draining: refused, and the listeners say so even past the early check
    drained = private_text(3610, 3611, QUESTION)
    core.begin_drain()
    assert (await first.post(drained)).status_code == 503
    assert await first.adapter.process(Update.de_json(drained, first.adapter.app.bot)) is False
    assert (await second.post(drained)).status_code == 200  # another worker takes it
    [final] = await answered(fake_tg, 3611)
    assert "1,300 dollars" in final["text"]
    await settled(db, 3601, "3601:36000")
    await settled(db, 3611, "3611:36100")
    assert len(answers(fake_tg, 3601)) == 1 and len(answers(fake_tg, 3611)) == 1


async def test_polling_asks_again_for_an_update_that_was_not_taken(
    docs: None,
    database_url: str,
    embedder: Embedder,
    fake_tg: FakeTelegram,
    monkeypatch: pytest.MonkeyPatch,
    recwarn: pytest.WarningsRecorder,
) -> None:
    h = await start_harness(
        database_url, embedder, fake_tg, TELEGRAM_WEBHOOK_URL="", TELEGRAM_WEBHOOK_SECRET=""
    )
    core = h.worker.core
    accept = core.accept
    tries: list[float] = []

    async def flaky(inbound: Any) -> Accepted:
        tries.append(time.monotonic())
        if len(tries) <= 2:
            raise ShuttingDownError("not now")
        return await accept(inbound)

    monkeypatch.setattr(core, "accept", flaky)
    try:
        fake_tg.updates.put(private_text(3700, 3701, QUESTION))
        [final] = await answered(fake_tg, 3701)
        assert "1,300 dollars" in final["text"] and len(tries) == 3
        offsets = [int(p["offset"]) if p.get("offset") else None for p in fake_tg.polls]
        # after each refusal the poller asked again from that update, never past it
        assert offsets.count(3700) >= 2, offsets
        assert 3701 not in offsets[: offsets.index(3700) + 2], offsets
        assert tries[2] - tries[1] >= 1.5  # it backed off
        # stop: no fetching after, a long poll under way is not waited for
        await until(lambda: any(int(p.get("offset") or 0) == 3701 for p in fake_tg.polls))
        poller = h.adapter.poller
        assert poller is not None and poller.running
        started = time.monotonic()
        await h.adapter.stop()
        assert time.monotonic() - started < 2.0
        polls = len(fake_tg.polls)
        assert int(fake_tg.polls[-1]["offset"]) == 3701  # what was taken is confirmed
        assert not poller.running and h.adapter.poller is None  # nothing left to fetch
        assert len(fake_tg.polls) == polls
        assert len(answers(fake_tg, 3701)) == 1
        # polling logs no library warning an operator could do nothing about
        assert not [w for w in recwarn if "getUpdates" in str(w.message)]
    finally:
        await stop_harness(h)


def _malformed_updates() -> list[tuple[str, dict[str, Any]]]:
    """Updates whose fields do not have the Bot API's shape (a buggy proxy, a forged post)."""
    asked = private_text(3900, 3901, QUESTION)
    bad: list[tuple[str, dict[str, Any]]] = []
    for name, markup in (
        ("no inline_keyboard", {}),
        ("markup a string", "x"),
        ("keyboard a string", {"inline_keyboard": "x"}),
        ("row of strings", {"inline_keyboard": [["x"]]}),
        ("button without text", {"inline_keyboard": [[{"callback_data": "fb:1:1"}]]}),
    ):
        message = {**asked["message"], "reply_markup": markup}
        bad.append((name, {"update_id": 3900 + len(bad), "message": message}))
        pressed = callback(3950 + len(bad), 3901, "fb:1:1", message)
        bad.append((f"vote under {name}", pressed))
    for name, field in (
        ("sender a string", {"from": "x"}),
        ("entity without offset", {"entities": [{"type": "mention"}]}),
        ("document without id", {"document": {}}),
        ("reply without date", {"reply_to_message": {}}),
    ):
        bad.append((name, {"update_id": 3980 + len(bad), "message": {**asked["message"], **field}}))
    stopped = {"stopped_message_generation": {"chat": "x", "draft_id": 1}}
    bad.append(("stopped draft chat a string", {"update_id": 3999, **stopped}))
    return bad


@pytest.mark.parametrize(("name", "update"), _malformed_updates())
async def test_a_malformed_update_is_one_log_line_and_a_200(
    name: str,
    update: dict[str, Any],
    one: TelegramHarness,
    fake_tg: FakeTelegram,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # a 500 (or a 503) would have Telegram deliver it again, forever
    with caplog.at_level("INFO"):
        assert (await one.post(update)).status_code == 200, name
    said = [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in said), name
    # the next well-formed update is answered as usual
    assert (await one.post(private_text(3800, 3801, QUESTION))).status_code == 200
    [final] = await answered(fake_tg, 3801)
    assert "1,300 dollars" in final["text"]
