"""Hand-off across workers and rooms: each message relayed once by two workers, a Telegram
staff group, reminders of unanswered cases, the counts in `stats`, retention."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import text

from bot.core.admin.audit import Actor
from bot.core.admin.retention import purge_expired
from bot.telegram.translate import message_key
from storage.db import Database
from storage.embeddings import Embedder
from tests.handoff.harness import (
    STAFF_ROOM,
    Both,
    eventually,
    handoff_settings,
    recorded,
    staff_posts,
    start_both,
    stop_both,
    thread_message,
)
from tests.slack.test_slack import fake_slack
from tests.support.fake_slack import FakeSlack
from tests.support.fake_telegram import (
    BOT_USERNAME,
    FakeTelegram,
    callback,
    group_text,
    private_text,
)
from tests.telegram.test_telegram import answers, docs, fake_tg, keyboard, until_stored

__all__ = ["docs", "fake_slack", "fake_tg"]

CITIZEN = 7101
MISSING = "Where do I register my dog?"
STAFF_GROUP = -100555
TG_STAFF = 55


async def open_case(both: Both, fake_tg: FakeTelegram, first_update: int) -> None:
    """The citizen is refused, then presses "Ask a person"."""
    await both.tg.post(private_text(first_update, CITIZEN, MISSING))
    [refusal] = await eventually(lambda: answers(fake_tg, CITIZEN))
    ask = next(b for b in keyboard(refusal) if b["callback_data"].startswith("cb:handoff:"))
    shown = next(m for m in fake_tg.sent if m["chat"]["id"] == CITIZEN)
    shown = {**shown, "reply_markup": refusal["reply_markup"]}
    await both.tg.post(callback(first_update + 1, CITIZEN, ask["callback_data"], shown))


def person_messages(fake: FakeTelegram) -> list[str]:
    return [
        str(p["text"])
        for p in fake.of("sendMessage", CITIZEN, delivered=True)
        if "From our staff" in str(p.get("text"))
    ]


@pytest.fixture
async def two(
    docs: None, database_url: str, embedder: Embedder, fake_slack: FakeSlack, fake_tg: FakeTelegram
) -> AsyncIterator[list[Both]]:
    settings = handoff_settings(fake_slack, fake_tg, HANDOFF_REMIND_MINUTES=0.01)
    workers = [await start_both(database_url, embedder, settings) for _ in range(2)]
    yield workers
    for w in workers:
        await stop_both(w)


async def test_two_workers_relay_each_message_once_and_remind_unanswered_cases(
    two: list[Both], fake_tg: FakeTelegram, fake_slack: FakeSlack, db: Database
) -> None:
    await open_case(two[0], fake_tg, 200)
    _, reply = (await eventually(lambda: staff_posts(fake_slack)))[0]
    card_ts = reply["ts"]
    await recorded(db, "slack", f"{STAFF_ROOM}:{card_ts}")
    # nobody answered within HANDOFF_REMIND_MINUTES: one reminder, by one worker
    async with db.transaction() as session:  # as if the card had waited a while
        await session.execute(
            text("UPDATE handoff_cases SET created_at = now() - interval '5 minutes'")
        )
    reminded = [await w.worker.core.handoff.rooms.remind_due() for w in two]
    assert sorted(reminded) == [0, 1]
    reminders = await eventually(
        lambda: [p for p, _ in staff_posts(fake_slack, thread_ts=card_ts) if "waited" in p["text"]]
    )
    assert len(reminders) == 1

    # Slack delivers the staff reply to both workers (a retry): relayed once
    event = thread_message("Bring your ID to any district animal hospital.", "901.1", card_ts)
    for w in two:
        await w.slack.event(event, event_id="EvSame")
    await eventually(lambda: person_messages(fake_tg))
    # the citizen's reply arrives at both workers too: one post in the thread
    update = private_text(210, CITIZEN, "Thanks! Is there a fee?")
    for w in two:
        await w.tg.post(update)
    await eventually(
        lambda: [p for p, _ in staff_posts(fake_slack, thread_ts=card_ts) if "fee" in p["text"]]
    )
    for w in two:
        await w.worker.core.outbox.deliver_due()
    assert len(person_messages(fake_tg)) == 1
    assert (
        len([p for p, _ in staff_posts(fake_slack, thread_ts=card_ts) if "fee" in p["text"]]) == 1
    )
    assert not any("Thanks! Is there a fee?" in a["text"] for a in answers(fake_tg, CITIZEN))
    # answered now: no more reminders however long it waits
    async with db.transaction() as session:
        await session.execute(text("UPDATE handoff_cases SET reminded_at = now() - interval '1 h'"))
    assert await two[1].worker.core.handoff.rooms.remind_due() == 0

    # stats count it: opened, answered, a minute-scale first reply, from a refusal
    stats = await two[0].worker.core.admin.reports.stats(Actor("console", "op", True))
    assert stats["handoffs"]["opened"] == 1 and stats["handoffs"]["answered"] == 1
    assert stats["handoffs"]["from_refusals"] == 1
    assert stats["handoffs"]["refusals_handed_off"] == 1.0
    assert stats["handoffs"]["median_first_reply_minutes"] is not None


@pytest.fixture
async def telegram_room(
    docs: None, database_url: str, embedder: Embedder, fake_slack: FakeSlack, fake_tg: FakeTelegram
) -> AsyncIterator[Both]:
    settings = handoff_settings(
        fake_slack,
        fake_tg,
        HANDOFF_SLACK_CHANNEL="",
        HANDOFF_TELEGRAM_CHAT_ID=str(STAFF_GROUP),
        HANDOFF_STAFF_USER_IDS=f"telegram:{TG_STAFF}",
        RATE_LIMIT_PER_MINUTE=5,  # staff at work are not limited like askers
    )
    both = await start_both(database_url, embedder, settings)
    yield both
    await stop_both(both)


def group_message(update: int, user: int, body: str, replied: dict[str, Any]) -> dict[str, Any]:
    return group_text(update, STAFF_GROUP, user, body, reply_to=replied)


async def test_a_telegram_staff_group_answers_by_replying_to_the_card(
    telegram_room: Both, fake_tg: FakeTelegram, fake_slack: FakeSlack, db: Database
) -> None:
    await open_case(telegram_room, fake_tg, 300)
    card = await eventually(lambda: [m for m in fake_tg.sent if m["chat"]["id"] == STAFF_GROUP])
    await recorded(db, "telegram", f"{STAFF_GROUP}:{card[0]['message_id']}")
    assert MISSING in card[0]["text"]
    assert not staff_posts(fake_slack)  # no Slack room configured: nothing there
    # a group member who is not listed staff: their reply stays in the group
    await telegram_room.tg.post(group_message(310, 77, "I think the vet does it", card[0]))
    # listed staff reply to the card: relayed to the citizen
    await telegram_room.tg.post(
        group_message(311, TG_STAFF, "Any district vet, 250 dollars.", card[0])
    )
    relayed = await eventually(lambda: person_messages(fake_tg))
    assert "250 dollars" in relayed[0] and len(relayed) == 1
    # staff answer five more times within the minute (six in all, over
    # RATE_LIMIT_PER_MINUTE=5): staff at work are not limited like askers
    for k in range(5):
        body = f"Step {k + 1} of the registration."
        await telegram_room.tg.post(group_message(312 + k, TG_STAFF, body, card[0]))
    await eventually(lambda: len(person_messages(fake_tg)) >= 6)
    # the citizen's message goes to the group as a reply to the card
    await telegram_room.tg.post(private_text(320, CITIZEN, "Do puppies need it too?"))
    into_group = await eventually(
        lambda: [p for p in fake_tg.of("sendMessage", STAFF_GROUP) if "puppies" in p["text"]]
    )
    assert int(into_group[0]["reply_parameters"]["message_id"]) == card[0]["message_id"]
    # /bot hands the chat back: the case closes and the citizen is answered by the bot again
    await telegram_room.tg.post(private_text(330, CITIZEN, "/bot"))
    await eventually(
        lambda: any(
            "answering your questions again" in str(p["text"])
            for p in fake_tg.of("sendMessage", CITIZEN)
        )
    )
    async with db.sessions() as session:
        status = await session.scalar(text("SELECT status FROM handoff_cases"))
    assert status == "closed"
    # retention: a closed case past RETENTION_DAYS goes, with its messages
    async with db.transaction() as session:
        await session.execute(
            text("UPDATE handoff_cases SET closed_at = now() - interval '400 days'")
        )
    deleted = await purge_expired(db, 180)
    assert deleted["handoff_cases"] == 1
    async with db.sessions() as session:
        left = await session.scalar(text("SELECT count(*) FROM handoff_messages"))
    assert left == 0


async def test_only_the_asker_may_hand_their_group_question_to_a_person(
    telegram_room: Both, fake_tg: FakeTelegram, db: Database
) -> None:
    group, asker, other = -200777, 81, 82
    await telegram_room.tg.post(group_text(400, group, asker, f"@{BOT_USERNAME} {MISSING}"))
    [refusal] = await eventually(lambda: answers(fake_tg, group))
    ask = next(b for b in keyboard(refusal) if b["callback_data"].startswith("cb:handoff:"))
    shown = next(m for m in fake_tg.sent if m["chat"]["id"] == group)
    shown = {**shown, "reply_markup": refusal["reply_markup"]}
    await telegram_room.tg.post(callback(401, other, ask["callback_data"], shown))
    alert = await eventually(lambda: fake_tg.of("answerCallbackQuery"))
    assert "Only the person who asked" in alert[0]["text"]
    assert not [m for m in fake_tg.sent if m["chat"]["id"] == STAFF_GROUP]
    await telegram_room.tg.post(callback(402, asker, ask["callback_data"], shown))
    card = await eventually(lambda: [m for m in fake_tg.sent if m["chat"]["id"] == STAFF_GROUP])
    await recorded(db, "telegram", f"{STAFF_GROUP}:{card[0]['message_id']}")
    assert MISSING in card[0]["text"]

    await telegram_room.tg.post(group_message(410, TG_STAFF, "Any district vet.", card[0]))

    def from_staff() -> list[dict[str, Any]]:
        return [
            m
            for m in fake_tg.sent
            if m["chat"]["id"] == group and "From our staff" in m.get("text", "")
        ]

    relayed = await eventually(from_staff)
    # (the bot notes which conversation its group message belongs to once it is sent)
    await until_stored(db, message_key(group, relayed[-1]["message_id"]))
    # the asker replies to a relayed message in the group: it reaches the staff, not the bot
    before = len(answers(fake_tg, group))
    reply = group_text(420, group, asker, "And for a cat?", reply_to=relayed[-1])
    await telegram_room.tg.post(reply)
    await eventually(
        lambda: [p for p in fake_tg.of("sendMessage", STAFF_GROUP) if "a cat" in p["text"]]
    )
    assert len(answers(fake_tg, group)) == before
    # someone else replying to a relayed message is answered by the bot, not relayed
    bystander = group_text(
        425, group, other, "How much does an adult passport cost?", reply_to=relayed[-1]
    )
    await telegram_room.tg.post(bystander)
    await eventually(lambda: len(answers(fake_tg, group)) > before)
    assert not [p for p in fake_tg.of("sendMessage", STAFF_GROUP) if "passport" in p["text"]]
    # /bot in the group hands the asker's chat back
    command = group_text(430, group, asker, f"/bot@{BOT_USERNAME}")
    length = len(f"/bot@{BOT_USERNAME}")
    command["message"]["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
    await telegram_room.tg.post(command)
    await eventually(
        lambda: any(
            "answering your questions again" in str(p["text"])
            for p in fake_tg.of("sendMessage", group)
        )
    )


async def test_a_case_no_staff_room_can_see_is_closed_and_the_asker_sent_to_the_desk(
    two: list[Both], fake_tg: FakeTelegram, fake_slack: FakeSlack, db: Database
) -> None:
    fake_slack.failing["chat.postMessage"] = "channel_not_found"  # the bot is not in CSTAFF
    await open_case(two[0], fake_tg, 500)
    await two[0].tg.post(private_text(510, CITIZEN, "Hello? Anyone there?"))
    told = await eventually(
        lambda: [p for p in fake_tg.of("sendMessage", CITIZEN) if "reach our staff" in p["text"]]
    )
    assert "our service desk" in told[0]["text"]  # HANDOFF_CONTACT's default
    async with db.sessions() as session:
        status = await session.scalar(text("SELECT status FROM handoff_cases"))
        rows = await session.execute(text("SELECT status FROM outbox WHERE platform = 'slack'"))
    assert status == "closed"
    assert {str(r[0]) for r in rows} <= {"failed"}  # nothing left retrying at the room's head
    # the bot answers the citizen again
    before = len(answers(fake_tg, CITIZEN))
    await two[0].tg.post(private_text(520, CITIZEN, "How much does an adult passport cost?"))
    await eventually(lambda: len(answers(fake_tg, CITIZEN)) > before)


async def test_a_knowledge_base_claim_is_taken_once_and_freed_when_its_worker_died(
    db: Database,
) -> None:
    from storage.repositories import handoff as cases

    values: dict[str, Any] = {
        "platform": "telegram",
        "conversation_key": "9",
        "asker": "9",
        "route": {},
        "language": "en",
        "question": "q",
        "answer": "a",
        "outcome": "refused",
        "passages": [],
        "answer_message_id": None,
    }
    async with db.transaction() as session:
        case_id, _ = await cases.open_case(session, values)
        assert await cases.claim_kb(session, case_id) is False  # only a closed case
        await cases.close(session, case_id, "telegram:55")
        assert await cases.claim_kb(session, case_id) is True
        assert await cases.claim_kb(session, case_id) is False  # a second press: no
        await session.execute(
            text("UPDATE handoff_cases SET kb_claimed_at = now() - interval '1 hour'")
        )
        assert await cases.claim_kb(session, case_id) is True  # its worker died: free again
