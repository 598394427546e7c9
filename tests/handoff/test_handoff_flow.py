"""A Telegram citizen's refused question handed to a person in Slack, and back.

Against the fake Slack and Telegram servers and the embedded Postgres: "Ask a
person" opens a case in the Slack staff channel; staff replies in its thread
reach the citizen's Telegram chat in order, marked as from a person; the
citizen's next message reaches the thread while the bot stays quiet; a
non-staff user can neither reply nor claim nor close; close hands the chat
back; "Add to knowledge base" makes the staff answer a cited answer for the
next citizen, in the other script.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from storage.repositories import gap_reasks, handoff_reports
from tests.handoff.harness import (
    STAFF,
    STAFF_ROOM,
    Both,
    buttons_of,
    eventually,
    handoff_settings,
    press,
    recorded,
    staff_posts,
    start_both,
    stop_both,
    thread_message,
)
from tests.slack.test_slack import blocks_text, fake_slack
from tests.support.core_fixtures import jobs_running
from tests.support.fake_slack import FakeSlack
from tests.support.fake_telegram import FakeTelegram, callback, private_text
from tests.telegram.test_telegram import answers, docs, fake_tg, keyboard

__all__ = ["docs", "fake_slack", "fake_tg"]  # fixtures used here

CITIZEN, OTHER_CITIZEN = 7001, 7002
# a question the sample documents do not answer (Traditional Chinese)
MISSING = "請問飼養的狗要去哪裡辦理寵物登記？"
MISSING_HANS = "请问养的狗要去哪里办理宠物登记？"
STAFF_ANSWER = "寵物登記請攜帶身分證到各區動物醫院辦理，費用新臺幣二百五十元。"


@pytest.fixture
async def both(
    docs: None, database_url: str, embedder: Embedder, fake_slack: FakeSlack, fake_tg: FakeTelegram
) -> AsyncIterator[Both]:
    h = await start_both(database_url, embedder, handoff_settings(fake_slack, fake_tg))
    yield h
    await stop_both(h)


def sent_to(fake: FakeTelegram, chat: int) -> list[str]:
    """Texts the bot sent to a Telegram chat, in order."""
    return [str(p.get("text", "")) for p in fake.of("sendMessage", chat, delivered=True)]


async def ask_refused(both: Both, fake_tg: FakeTelegram, update: int) -> dict[str, Any]:
    """The citizen asks what the documents do not answer; the refusal as sent."""
    await both.tg.post(private_text(update, CITIZEN, MISSING, language="zh-hant"))
    await eventually(lambda: answers(fake_tg, CITIZEN))
    return answers(fake_tg, CITIZEN)[-1]


async def open_case(
    both: Both, fake_tg: FakeTelegram, fake_slack: FakeSlack, db: Database
) -> tuple[dict[str, Any], str]:
    """The citizen asks for a person after a refusal: the staff card as posted, its ts."""
    refusal = await ask_refused(both, fake_tg, 100)
    assert "轉給專人" in refusal["text"]  # the refusal says a person can take over
    ask = next(b for b in keyboard(refusal) if b["callback_data"].startswith("cb:handoff:"))
    shown = next(m for m in fake_tg.sent if m["chat"]["id"] == CITIZEN)
    shown = {**shown, "reply_markup": refusal["reply_markup"]}
    await both.tg.post(callback(101, CITIZEN, ask["callback_data"], shown))
    card, card_reply = (await eventually(lambda: staff_posts(fake_slack)))[0]
    await recorded(db, "slack", f"{STAFF_ROOM}:{card_reply['ts']}")
    return card, str(card_reply["ts"])


async def relayed_to_citizen(fake_tg: FakeTelegram, count: int) -> list[str]:
    """The staff replies the citizen got (at least `count`), in the order shown."""
    return list(
        await eventually(
            lambda: (
                (r := [t for t in sent_to(fake_tg, CITIZEN) if "專人回覆" in t])[count - 1 :] and r
            )
        )
    )


async def test_a_citizen_typing_that_they_want_a_person_is_offered_one_and_reaches_staff(
    both: Both, fake_tg: FakeTelegram, fake_slack: FakeSlack, db: Database
) -> None:
    await both.tg.post(private_text(600, CITIZEN, "我要找真人客服", language="zh-hant"))
    reply = (await eventually(lambda: answers(fake_tg, CITIZEN)))[-1]
    # no "the documents do not answer this": who to contact, and the button
    assert "將由專人為您服務" in reply["text"] and "轉給專人" in reply["text"]
    assert "文件中沒有" not in reply["text"]
    ask = next(b for b in keyboard(reply) if b["callback_data"].startswith("cb:handoff:"))
    shown = next(m for m in fake_tg.sent if m["chat"]["id"] == CITIZEN)
    shown = {**shown, "reply_markup": reply["reply_markup"]}
    await both.tg.post(callback(601, CITIZEN, ask["callback_data"], shown))
    card, _ = (await eventually(lambda: staff_posts(fake_slack)))[0]
    assert "我要找真人客服" in card["text"] and "telegram" in card["text"]
    await eventually(lambda: any("專人" in t and "/bot" in t for t in sent_to(fake_tg, CITIZEN)))
    # no document is missing for it: neither the gaps report nor the re-asks list it,
    # while a refused question handed off stays a gap
    # (another citizen: this one's messages go to the open case now)
    await both.tg.post(private_text(602, OTHER_CITIZEN, MISSING, language="zh-hant"))
    await eventually(lambda: answers(fake_tg, OTHER_CITIZEN))
    since = datetime.now(UTC) - timedelta(hours=1)
    async with db.sessions() as session:
        gaps = [g["question"] for g in await handoff_reports.gap_questions(session, since)]
        reasks = [g["question"] for g in await gap_reasks.open_questions(session, since, 50)]
    assert MISSING in gaps and MISSING in reasks
    assert not any("真人" in q for q in gaps + reasks), (gaps, reasks)


async def test_telegram_citizen_to_slack_staff_and_back(
    both: Both, fake_tg: FakeTelegram, fake_slack: FakeSlack, db: Database
) -> None:
    # a card in the staff channel with the masked question, claim and close
    card, card_ts = await open_case(both, fake_tg, fake_slack, db)
    assert MISSING in card["text"] and "telegram" in card["text"]
    assert {b["action_id"] for b in buttons_of(card["blocks"])} == {
        "ragbot_case_claim",
        "ragbot_case_close",
    }
    # the citizen is told, in their language, that a person will reply here
    await eventually(lambda: any("專人" in t and "/bot" in t for t in sent_to(fake_tg, CITIZEN)))

    # staff reply twice in the card's thread: both reach the citizen, in order, from a person
    await both.slack.event(thread_message("您好，我幫您查詢。", "900.1", card_ts))
    await both.slack.event(thread_message(STAFF_ANSWER, "900.2", card_ts))
    relayed = await relayed_to_citizen(fake_tg, 2)
    assert "我幫您查詢" in relayed[0] and STAFF_ANSWER in relayed[1]

    # the citizen's next message goes to the thread, and the bot does not answer it
    before = len(answers(fake_tg, CITIZEN))
    await both.tg.post(private_text(102, CITIZEN, "謝謝，那需要帶照片嗎？", language="zh-hant"))
    into_thread = await eventually(lambda: staff_posts(fake_slack, thread_ts=card_ts))
    assert any("需要帶照片" in p["text"] for p, _ in into_thread)
    assert len(answers(fake_tg, CITIZEN)) == before

    # someone who is not staff: their thread reply is not relayed, their claim refused
    await both.slack.event(thread_message("我也來回答", "900.3", card_ts, user="U9"))
    card_message = {"ts": card_ts, "text": card["text"], "blocks": card["blocks"]}
    claim, close = sorted(buttons_of(card["blocks"]), key=lambda b: b["action_id"])
    await both.slack.form({"payload": press("U9", STAFF_ROOM, card_message, claim)})
    refused = await eventually(lambda: fake_slack.of("chat.postEphemeral", user="U9"))
    assert "Only staff" in refused[0]["text"]
    await both.slack.form({"payload": press("U9", STAFF_ROOM, card_message, close)})
    await eventually(lambda: len(fake_slack.of("chat.postEphemeral", user="U9")) >= 2)
    assert not any("我也來回答" in t for t in sent_to(fake_tg, CITIZEN))
    async with db.sessions() as session:
        status = await session.scalar(text("SELECT status FROM handoff_cases"))
    assert status == "claimed"  # the staff member's first reply claimed it, nobody closed it

    # staff close: the citizen is told, and the bot answers again
    await both.slack.form({"payload": press(STAFF, STAFF_ROOM, card_message, close)})
    await eventually(lambda: any("對話已結束" in t for t in sent_to(fake_tg, CITIZEN)))
    edited = await eventually(
        lambda: [
            p
            for p in fake_slack.of("chat.update", channel=STAFF_ROOM, ts=card_ts)
            if "closed by" in p["text"]
        ]
    )
    kb_buttons = {b["action_id"]: b for b in buttons_of(edited[-1]["blocks"])}
    assert "ragbot_case_kb-public" in kb_buttons
    await both.tg.post(private_text(103, CITIZEN, "護照換發要多少錢？", language="zh-hant"))
    await eventually(lambda: len(answers(fake_tg, CITIZEN)) > before)
    # a staff reply after the close reaches nobody, and the thread says so
    await both.slack.event(thread_message("還有一件事", "900.4", card_ts))
    await eventually(
        lambda: [
            p
            for p, _ in staff_posts(fake_slack, thread_ts=card_ts)
            if "Not sent to the asker" in p["text"]
        ]
    )
    assert not any("還有一件事" in t for t in sent_to(fake_tg, CITIZEN))

    # add to the knowledge base: the next citizen, in Simplified Chinese, gets a cited answer
    closed_card = {"ts": card_ts, "text": edited[-1]["text"], "blocks": edited[-1]["blocks"]}
    async with jobs_running(both.worker):
        await both.slack.form(
            {"payload": press(STAFF, STAFF_ROOM, closed_card, kb_buttons["ragbot_case_kb-public"])}
        )
        # the upload's result is posted under the card, like any upload's in its thread
        result = await eventually(
            lambda: [
                p
                for p, _ in staff_posts(fake_slack, thread_ts=card_ts)
                if "handoff-case" in p["text"] or "knowledge base" in p["text"]
            ][1:],
            timeout=60,
        )
    assert any("added" in p["text"].lower() for p in result), [p["text"] for p in result]
    await both.tg.post(private_text(104, OTHER_CITIZEN, MISSING_HANS, language="zh-hans"))
    [final] = await eventually(lambda: answers(fake_tg, OTHER_CITIZEN))
    assert "二百五十" in final["text"]  # the staff answer, from the new document
    assert "Staff answer #" in final["text"]  # cited: the case's document among the sources
    async with db.sessions() as session:
        audited = set(await session.scalars(text("SELECT action || ':' || result FROM audit_log")))
    assert {"handoff:open:ok", "handoff:reply:ok", "handoff:reply:refused"} <= audited
    assert {"handoff:claim:refused", "handoff:close:ok", "upload:queued"} <= audited


# an official page whose title is exactly what the citizen asked
OFFICIAL = "犬隻絕育補助：每隻犬隻補助新臺幣一千五百元，請至動物保護處申請。\n"


async def test_a_case_whose_question_is_an_official_title_never_replaces_that_document(
    both: Both,
    fake_tg: FakeTelegram,
    fake_slack: FakeSlack,
    db: Database,
    embedder: Embedder,
) -> None:
    """A citizen who asks exactly an official document's title, and whose case staff
    answer and add to the knowledge base, adds a document under the case's own title:
    the official one is untouched and still answers."""
    card, card_ts = await open_case(both, fake_tg, fake_slack, db)
    ingestion = IngestionService(db, embedder, IngestOptions())
    official = await ingestion.ingest_bytes("dogs.md", OFFICIAL.encode(), title=MISSING)
    assert official.status == "added"
    async with db.sessions() as session:
        case_id, before = (
            await session.execute(
                text(
                    "SELECT (SELECT id FROM handoff_cases), content_hash FROM documents"
                    " WHERE title = :t"
                ),
                {"t": MISSING},
            )
        ).one()
    await both.slack.event(thread_message(STAFF_ANSWER, "920.1", card_ts))
    await relayed_to_citizen(fake_tg, 1)
    card_message = {"ts": card_ts, "text": card["text"], "blocks": card["blocks"]}
    close = next(b for b in buttons_of(card["blocks"]) if b["action_id"] == "ragbot_case_close")
    await both.slack.form({"payload": press(STAFF, STAFF_ROOM, card_message, close)})
    edited = await eventually(
        lambda: [
            p
            for p in fake_slack.of("chat.update", channel=STAFF_ROOM, ts=card_ts)
            if "closed by" in p["text"]
        ]
    )
    # the card says what "Add to knowledge base" adds, and where
    assert f"“Staff answer #{case_id}”" in edited[-1]["text"] and "public" in edited[-1]["text"]
    kb = {b["action_id"]: b for b in buttons_of(edited[-1]["blocks"])}["ragbot_case_kb-public"]
    closed_card = {"ts": card_ts, "text": edited[-1]["text"], "blocks": edited[-1]["blocks"]}
    async with jobs_running(both.worker):
        await both.slack.form({"payload": press(STAFF, STAFF_ROOM, closed_card, kb)})
        queued = await eventually(
            lambda: [
                p["text"]
                for p, _ in staff_posts(fake_slack, thread_ts=card_ts)
                if "knowledge base (public)" in p["text"]
            ]
        )
        assert f"“Staff answer #{case_id}”" in queued[0]
        [outcome] = await eventually(
            lambda: [
                p["text"]
                for p, _ in staff_posts(fake_slack, thread_ts=card_ts)
                if p["text"].startswith("handoff-case-")  # the upload's result, whatever it is
            ],
            timeout=60,
        )
    assert f"was added as 'Staff answer #{case_id}'" in outcome, outcome
    async with db.sessions() as session:
        rows = (await session.execute(text("SELECT title, origin FROM documents"))).all()
        stored = {title: origin for title, origin in rows}
        after = await session.scalar(
            text("SELECT content_hash FROM documents WHERE title = :t"), {"t": MISSING}
        )
    assert after == before and stored[MISSING] == "file"  # the official page, untouched
    assert stored[f"Staff answer #{case_id}"] == "case"  # the FAQ, under its own title
    # the official page still answers, and so does the staff answer
    await both.tg.post(private_text(105, OTHER_CITIZEN, "犬隻絕育補助多少錢？", language="zh-hant"))
    [subsidy] = await eventually(lambda: answers(fake_tg, OTHER_CITIZEN))
    assert "一千五百" in subsidy["text"] and MISSING[:8] in subsidy["text"]
    await both.tg.post(private_text(106, OTHER_CITIZEN, MISSING_HANS, language="zh-hans"))
    staff = await eventually(lambda: answers(fake_tg, OTHER_CITIZEN)[1:])
    assert "二百五十" in staff[0]["text"]


async def test_two_staff_replies_reach_the_citizen_in_order_however_long_each_lookup_takes(
    docs: None, database_url: str, embedder: Embedder, fake_slack: FakeSlack, fake_tg: FakeTelegram
) -> None:
    # Slack acknowledges before it looks a new sender up: the first reply's sender takes
    # longer to learn than the second's, and still the citizen reads them as written
    staff_ids = f"slack:{STAFF},slack:USTAFF2"
    settings = handoff_settings(fake_slack, fake_tg, HANDOFF_STAFF_USER_IDS=staff_ids)
    both = await start_both(database_url, embedder, settings)
    try:
        _, card_ts = await open_case(both, fake_tg, fake_slack, both.worker.db)
        fake_slack.user_delays[STAFF] = 0.8
        await both.slack.event(thread_message("您好，我是第一位。", "910.1", card_ts))
        await both.slack.event(thread_message("我是第二位。", "910.2", card_ts, user="USTAFF2"))
        relayed = await relayed_to_citizen(fake_tg, 2)
        assert "第一位" in relayed[0] and "第二位" in relayed[1]
    finally:
        await stop_both(both)


async def test_a_slack_employee_in_a_dm_reaches_a_person_and_gets_the_reply_in_the_thread(
    both: Both, fake_slack: FakeSlack
) -> None:
    dm = {
        "type": "message",
        "channel": "D42",
        "channel_type": "im",
        "user": "U42",
        "text": "Who approves travel to a conference abroad?",
        "ts": "950.1",
        "event_ts": "950.1",
    }
    await both.slack.event(dm)
    final = await eventually(
        lambda: [
            p
            for p in fake_slack.calls
            if p[0] in ("chat.update", "chat.postMessage")
            and p[1].get("channel") == "D42"
            and p[1].get("blocks")
        ]
    )
    blocks = final[-1][1]["blocks"]
    ask = next(b for b in buttons_of(blocks) if b["action_id"] == "ragbot_handoff_ask")
    answer = {"ts": "950.2", "thread_ts": "950.1", "text": "x", "blocks": blocks}
    # someone pressing a button the message does not carry changes nothing
    forged = {**ask, "value": str(int(ask["value"]) + 1)}
    await both.slack.form({"payload": press("U42", "D42", answer, forged)})
    await eventually(lambda: fake_slack.of("chat.postEphemeral", user="U42"))
    assert not staff_posts(fake_slack)
    await both.slack.form({"payload": press("U42", "D42", answer, ask)})
    card, reply = (await eventually(lambda: staff_posts(fake_slack)))[0]
    await recorded(both.worker.db, "slack", f"{STAFF_ROOM}:{reply['ts']}")
    assert "travel" in card["text"] and "slack" in card["text"]
    await eventually(
        lambda: [
            p
            for p in fake_slack.of("chat.postMessage", channel="D42", thread_ts="950.1")
            if "A person will reply" in p["text"]
        ]
    )
    # a new top-level DM message (a new thread in Slack's terms) still goes to the case
    await both.slack.event(
        {**dm, "text": "It is for a week in Tokyo.", "ts": "951.1", "event_ts": "951.1"}
    )
    await eventually(
        lambda: [
            p for p, _ in staff_posts(fake_slack, thread_ts=reply["ts"]) if "Tokyo" in p["text"]
        ]
    )
    await both.slack.event(thread_message("Your manager, then HR.", "952.1", reply["ts"]))
    relayed = await eventually(
        lambda: [
            p
            for p in fake_slack.of("chat.postMessage", channel="D42", thread_ts="950.1")
            if "From our staff" in p["text"]
        ]
    )
    assert "Your manager, then HR." in relayed[0]["text"]
    # nothing the bot answered to the Tokyo message: no answer blocks after the first
    answered = [
        p
        for m, p in fake_slack.calls
        if m in ("chat.update", "chat.postMessage")
        and p.get("channel") == "D42"
        and "ragbot_feedback" in str(p.get("blocks"))
    ]
    assert len(answered) == 1


CONTACT_EN = "the service desk (phone 1999, desk@city.example.org)"
CONTACT_ZH_HANT = "市民服務台（電話 1999）"


@pytest.fixture
async def contacted(
    docs: None, database_url: str, embedder: Embedder, fake_slack: FakeSlack, fake_tg: FakeTelegram
) -> AsyncIterator[Both]:
    settings = handoff_settings(
        fake_slack,
        fake_tg,
        HANDOFF_CONTACT_EN=CONTACT_EN,
        HANDOFF_CONTACT_ZH_HANT=CONTACT_ZH_HANT,
    )
    h = await start_both(database_url, embedder, settings)
    yield h
    await stop_both(h)


async def test_a_refusal_names_the_contact_in_the_askers_language_on_telegram_and_slack(
    contacted: Both, fake_tg: FakeTelegram, fake_slack: FakeSlack
) -> None:
    refusal = await ask_refused(contacted, fake_tg, 400)
    assert CONTACT_ZH_HANT in refusal["text"] and "轉給專人" in refusal["text"]
    assert CONTACT_EN not in refusal["text"]

    dm = {
        "type": "message",
        "channel": "D43",
        "channel_type": "im",
        "user": "U43",
        "text": "Where do I register my dog?",
        "ts": "960.1",
        "event_ts": "960.1",
    }
    await contacted.slack.event(dm)
    shown = await eventually(
        lambda: [
            blocks_text(p)
            for m, p in fake_slack.calls
            if m in ("chat.update", "chat.postMessage")
            and p.get("channel") == "D43"
            and p.get("blocks")
            and "Ask a person" in blocks_text(p)
        ]
    )
    assert CONTACT_EN in shown[-1] and CONTACT_ZH_HANT not in shown[-1]
