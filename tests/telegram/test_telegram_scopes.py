"""Who sees what on Telegram, through the real PTB adapter and the fake Bot API: votes only
count on the message that carries them, once per person; /memory shows only what
citizens may read; admin commands in groups are never answered in the group."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import text

from bot.core.admin.audit import Actor
from bot.core.messages import FinalAnswer, Reply
from bot.telegram.app import TelegramAdapter
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.support.core_fixtures import (
    collect,
    make_worker,
    message,
    only,
    settings_for_tests,
    until,
)
from tests.support.fake_telegram import BOT_USERNAME, TOKEN, FakeTelegram, callback, private_text
from tests.telegram.test_telegram import (
    ADMIN,
    SECRET,
    TelegramHarness,
    answered,
    docs,
    fake_tg,
    keyboard,
    open_harness,
    stop_harness,
)

__all__ = ["docs", "fake_tg"]  # fixtures used here, defined with the adapter's tests

PASSPORT_Q = "How much does an adult passport renewal cost?"
STAFF = "# Staff parking\n\nA staff parking permit costs 500 dollars a year at the depot.\n"
STAFF_Q = "How much does a staff parking permit cost?"


@pytest.fixture
async def tgm(
    docs: None, database_url: str, embedder: Embedder, fake_tg: FakeTelegram, db: Database
) -> AsyncIterator[TelegramHarness]:
    """One webhook-mode worker with the answer memory on, and an internal document too."""
    ingestion = IngestionService(db, embedder, IngestOptions())
    await ingestion.ingest_bytes("staff-parking.md", STAFF.encode(), collection="internal")
    config = settings_for_tests(
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=fake_tg.url,
        TELEGRAM_WEBHOOK_URL="https://bot.example.org/telegram/webhook",
        TELEGRAM_WEBHOOK_SECRET=SECRET,
    )
    worker = await make_worker(database_url, embedder, config, memory=True)
    h = await open_harness(worker, TelegramAdapter(worker.core, config))
    yield h
    await stop_harness(h)


def vote_data(final: dict[str, Any], helpful: bool) -> str:
    suffix = ":1" if helpful else ":0"
    return next(b["callback_data"] for b in keyboard(final) if b["callback_data"].endswith(suffix))


def shown(fake: FakeTelegram, chat_id: int, final: dict[str, Any]) -> dict[str, Any]:
    """The answer message as Telegram hands it back with a click: its buttons included."""
    sent = [m for m in fake.sent if m["chat"]["id"] == chat_id]
    return {**sent[-1], "reply_markup": final["reply_markup"]}


async def slack_answer(h: TelegramHarness, question: str, conv: str) -> FinalAnswer:
    events = await collect(h.worker.core.handle(message(question, platform="slack", conv=conv)))
    [final] = only(events, FinalAnswer)
    assert final.message_id is not None
    return final


async def memory_rows(db: Database) -> list[tuple[int, str, int]]:
    async with db.sessions() as session:
        rows = await session.execute(
            text("SELECT id, question, helpful FROM answer_memory ORDER BY id")
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]


async def feedback_rows(db: Database) -> list[tuple[str, str, int, int]]:
    async with db.sessions() as session:
        rows = await session.execute(
            text("SELECT platform, user_id, message_id, rating FROM feedback ORDER BY id")
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]


async def test_a_forged_callback_on_a_slack_answer_is_refused_and_changes_nothing(
    tgm: TelegramHarness, fake_tg: FakeTelegram, db: Database
) -> None:
    target = await slack_answer(tgm, STAFF_Q, "C1:500.1")  # an employee's internal answer
    remembered = await memory_rows(db)
    assert len(remembered) == 1  # the entry a forged vote would try to delete
    citizen = 901
    await tgm.post(private_text(9500, citizen, PASSPORT_Q))
    [final] = await answered(fake_tg, citizen)
    mine = shown(fake_tg, citizen, final)
    forged = f"fb:{target.message_id}:0"
    # the client chooses the data; the message is Telegram's, with the citizen's own buttons
    await tgm.post(callback(9501, citizen, forged, mine))
    # even a message whose buttons carried that id is not a Slack conversation
    forged_markup = {"inline_keyboard": [[{"text": "x", "callback_data": forged}]]}
    await tgm.post(callback(9502, citizen, forged, {**mine, "reply_markup": forged_markup}))
    await until(lambda: len(fake_tg.of("answerCallbackQuery")) >= 2)
    toasts = [p["text"] for p in fake_tg.of("answerCallbackQuery")]
    assert all("no longer available" in t for t in toasts), toasts
    assert not fake_tg.of("editMessageReplyMarkup")
    assert await feedback_rows(db) == []
    # the Slack entry is still there, unchanged (the citizen's own answer may add one)
    assert (await memory_rows(db))[0] == remembered[0]


async def test_five_helpful_clicks_by_one_user_count_once(
    tgm: TelegramHarness, fake_tg: FakeTelegram, db: Database
) -> None:
    await tgm.post(private_text(9600, 1001, PASSPORT_Q))
    await answered(fake_tg, 1001)
    await tgm.post(private_text(9610, 1002, PASSPORT_Q))  # answered from memory
    [final] = await answered(fake_tg, 1002)
    clicked = shown(fake_tg, 1002, final)
    for n in range(5):
        await tgm.post(callback(9611 + n, 1002, vote_data(final, True), clicked))
    await until(lambda: len(fake_tg.of("answerCallbackQuery")) >= 5)
    assert all("Thank you" in p["text"] for p in fake_tg.of("answerCallbackQuery"))
    votes = await feedback_rows(db)
    assert [(v[0], v[1], v[3]) for v in votes] == [("telegram", "1002", 1)]
    [(_, question, helpful)] = await memory_rows(db)
    assert question == PASSPORT_Q and helpful == 1


async def test_memory_on_telegram_lists_no_internal_entry_nor_slack_questions(
    tgm: TelegramHarness, fake_tg: FakeTelegram, db: Database
) -> None:
    await slack_answer(tgm, STAFF_Q, "C1:700.1")  # internal, asked in Slack
    await slack_answer(tgm, "Where do adults renew passports?", "C1:700.2")  # public, Slack
    await tgm.post(private_text(9700, 1101, PASSPORT_Q))  # public, asked on Telegram
    await answered(fake_tg, 1101)
    assert len(await memory_rows(db)) == 3
    await tgm.post(private_text(9701, ADMIN, "/memory"))
    await until(lambda: any("#" in p["text"] for p in fake_tg.of("sendMessage", ADMIN)))
    listing = fake_tg.of("sendMessage", ADMIN)[-1]["text"]
    assert "passport renewal cost" in listing
    assert "staff" not in listing.lower() and "Where do adults" not in listing
    # Slack's admins see their employees' entries, internal included, and not Telegram's
    slack_view = await collect(
        tgm.worker.core.handle(
            message("memory", platform="slack", user="U-ADMIN", command="memory")
        )
    )
    [reply] = only(slack_view, Reply)
    assert "staff parking" in reply.text.lower() and "Where do adults" in reply.text
    assert "passport renewal cost" not in reply.text
    # and a Telegram `forget all` forgets only what Telegram's admins can see
    await tgm.post(private_text(9702, ADMIN, "/memory forget all"))
    await until(lambda: any("forgot" in p["text"] for p in fake_tg.of("sendMessage", ADMIN)))
    assert len(await memory_rows(db)) == 2


def group_command(update_id: int, chat_id: int, user_id: int, command: str) -> dict[str, Any]:
    """An update: `/command@bot` typed in a group."""
    text_ = f"/{command}@{BOT_USERNAME}"
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id * 10,
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "supergroup", "title": "Town hall"},
            "from": {"id": user_id, "is_bot": False, "first_name": "Admin", "language_code": "en"},
            "text": text_,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text_)}],
        },
    }


async def test_an_admin_command_in_a_group_is_answered_privately_or_refused_with_a_hint(
    tgm: TelegramHarness, fake_tg: FakeTelegram
) -> None:
    group = -100777
    await tgm.post(group_command(9800, group, ADMIN, "docs"))
    await until(lambda: bool(fake_tg.of("sendMessage", ADMIN)))
    listing = fake_tg.of("sendMessage", ADMIN)[0]["text"]
    assert "passport" in listing and "staff-parking" not in listing
    assert not fake_tg.of("sendMessage", group)
    # an admin who never opened a private chat: Telegram refuses the DM, the group gets a hint
    fake_tg.failing["sendChatAction"] = (403, "Forbidden: bot can't initiate conversation")
    await tgm.post(group_command(9801, group, ADMIN, "stats"))
    await until(lambda: bool(fake_tg.of("sendMessage", group)))
    [hint] = fake_tg.of("sendMessage", group)
    assert "private chat" in hint["text"] and "documents" not in hint["text"]
    assert len(fake_tg.of("sendMessage", ADMIN)) == 1  # no stats anywhere


async def test_a_telegram_admin_cannot_delete_or_even_find_internal_documents_and_forms(
    tgm: TelegramHarness, fake_tg: FakeTelegram, db: Database
) -> None:
    admin = tgm.worker.core.knowledge
    operator = Actor("cli", "operator", True)
    await admin.add_form(
        operator, "Staff leave", "https://intra.example.org/leave", collection="internal"
    )
    replies = lambda: [p["text"] for p in fake_tg.of("sendMessage", ADMIN)]  # noqa: E731

    await tgm.post(private_text(9900, ADMIN, "/deldoc staff-parking"))
    await tgm.post(private_text(9901, ADMIN, "/deldoc no-such-title"))
    await tgm.post(private_text(9902, ADMIN, '/delform "Staff leave"'))
    await until(lambda: len(replies()) == 3)
    [internal_doc] = [t for t in replies() if "staff-parking" in t]
    [missing_doc] = [t for t in replies() if "no-such-title" in t]
    [internal_form] = [t for t in replies() if "Staff leave" in t]
    # the same words as for a title that does not exist: nothing says it does
    assert internal_doc == missing_doc.replace("no-such-title", "staff-parking")
    assert "There is no document named" in internal_doc
    assert "There is no form named" in internal_form
    async with db.sessions() as session:
        kept = await session.execute(
            text(
                "SELECT (SELECT count(*) FROM documents WHERE title = 'staff-parking'),"
                " (SELECT count(*) FROM forms WHERE name = 'Staff leave')"
            )
        )
        assert tuple(kept.one()) == (1, 1)
    # and what citizens read stays the Telegram admin's to delete (the test is not vacuous)
    await tgm.post(private_text(9903, ADMIN, "/deldoc passport"))
    await until(lambda: len(replies()) == 4)
    assert "deleted" in replies()[-1]
