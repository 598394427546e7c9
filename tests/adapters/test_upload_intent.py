"""Files become documents only when an admin asks, and personal data is held before publishing.

Through the real adapters (PTB, bolt) against the fake Telegram and Slack APIs,
with the embedded Postgres and the real job queue.
"""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import text

from storage.db import Database
from tests.slack import test_slack
from tests.slack.test_slack import SlackHarness, blocks_text, final_posts, mention
from tests.support.core_fixtures import jobs_running, until
from tests.support.fake_slack import FakeSlack
from tests.support.fake_telegram import FakeTelegram, callback, private_document, private_text
from tests.telegram import test_telegram
from tests.telegram.test_telegram import ADMIN, keyboard

# the adapters' fixtures, shared with their own tests
fake_tg, docs, tg = test_telegram.fake_tg, test_telegram.docs, test_telegram.tg
fake_slack, slack = test_slack.fake_slack, test_slack.slack
CITIZEN = 1500
COMPLAINT = (
    "# 陳情書\n\n陳情人：王小明，身分證字號A123456789，電話0912-345-678。\n請協助處理路燈故障。\n"
).encode()


async def _rows(db: Database, sql: str) -> list[tuple[Any, ...]]:
    async with db.sessions() as session:
        return [tuple(r) for r in (await session.execute(text(sql))).all()]


def _with_buttons(fake: FakeTelegram, chat_id: int, labels: list[str]) -> dict[str, Any]:
    """The last message sent to `chat_id` whose buttons are `labels`, as Telegram returned it."""
    sent = [
        p for p in fake.of("sendMessage", chat_id) if [b["text"] for b in keyboard(p)] == labels
    ]
    assert sent, [p.get("text") for p in fake.of("sendMessage", chat_id)]
    returned = [m for m in fake.sent if m.get("text") == sent[-1]["text"]]
    message = dict(returned[-1])
    message["reply_markup"] = sent[-1]["reply_markup"]
    return message


def _data(message: dict[str, Any], label: str) -> str:
    return next(b["callback_data"] for b in keyboard(message) if b["text"] == label)


def _alerts(fake: FakeTelegram) -> list[str]:
    return [str(p.get("text")) for p in fake.of("answerCallbackQuery") if p.get("show_alert")]


async def test_forwarded_document_with_an_id_is_offered_held_then_published_by_its_admin(
    tg,
    fake_tg: FakeTelegram,
    db: Database,
) -> None:  # type: ignore[no-untyped-def]
    fake_tg.files["cmp"] = COMPLAINT
    forwarded = private_document(9300, ADMIN, "cmp", "complaint.md", len(COMPLAINT), "/upload")
    forwarded["message"]["forward_origin"] = {  # the citizen's own caption does not count
        "type": "user",
        "date": int(time.time()),
        "sender_user": {"id": CITIZEN, "is_bot": False, "first_name": "Citizen"},
    }
    await tg[0].post(forwarded)
    await until(lambda: any(keyboard(p) for p in fake_tg.of("sendMessage", ADMIN)))
    # Telegram reads only `public` (TELEGRAM_COLLECTIONS): no "Add to internal"
    offer = _with_buttons(fake_tg, ADMIN, ["Add to public", "Ignore"])
    assert "nothing was stored" in offer["text"]
    assert not fake_tg.of("getFile")
    assert await _rows(db, "SELECT count(*) FROM uploads") == [(0,)]

    # a non-admin's press (forged or not) changes nothing and learns nothing: "gone",
    # told to them alone (the offer keeps its buttons), looked up and audited nowhere
    await tg[1].post(callback(9301, CITIZEN, _data(offer, "Add to public"), offer))
    await until(lambda: bool(_alerts(fake_tg)))
    assert "expired or was already made" in _alerts(fake_tg)[0]
    assert not fake_tg.of("editMessageText")
    assert not fake_tg.of("getFile")
    assert await _rows(db, "SELECT count(*) FROM uploads") == [(0,)]

    async with jobs_running(tg[0].worker):
        await tg[0].post(callback(9302, ADMIN, _data(offer, "Add to public"), offer))
        await until(lambda: any("Received" in p["text"] for p in fake_tg.of("editMessageText")))
        await until(
            lambda: any("personal data" in p["text"] for p in fake_tg.of("sendMessage", ADMIN)), 60
        )
    confirmation = next(p for p in fake_tg.of("editMessageText") if "Received" in p["text"])
    assert "public" in confirmation["text"] and "citizens" in confirmation["text"]
    held = _with_buttons(fake_tg, ADMIN, ["Publish anyway", "Cancel"])
    assert "ID number × 1" in held["text"] and "phone number × 1" in held["text"]
    assert "A1******89" in held["text"] and "A123456789" not in held["text"]
    assert "line 3" in held["text"]
    assert await _rows(db, "SELECT status, data IS NOT NULL FROM uploads") == [("held", True)]
    assert await _rows(db, "SELECT count(*) FROM documents WHERE title = 'complaint'") == [(0,)]
    assert await _rows(db, "SELECT detail FROM audit_log WHERE action = 'upload:held'") == [
        ("id=1, phone=1",)
    ]

    await tg[1].post(callback(9303, CITIZEN, _data(held, "Publish anyway"), held))
    await until(lambda: len(_alerts(fake_tg)) == 2)
    # the same answer as for an upload that does not exist: nothing says this one is held
    assert "expired or was already made" in _alerts(fake_tg)[1]
    assert await _rows(db, "SELECT status FROM uploads") == [("held",)]

    async with jobs_running(tg[1].worker):
        await tg[1].post(callback(9304, ADMIN, _data(held, "Publish anyway"), held))
        await until(
            lambda: any("was added as" in p["text"] for p in fake_tg.of("sendMessage", ADMIN)), 60
        )
    assert await _rows(db, "SELECT collection FROM documents WHERE title = 'complaint'") == [
        ("public",)
    ]
    audited = await _rows(db, "SELECT action, result FROM audit_log WHERE user_id = '42'")
    assert ("upload:publish_anyway", "ok") in audited
    assert await _rows(db, "SELECT count(*) FROM audit_log WHERE user_id = '1500'") == [(0,)]


async def test_upload_replying_to_a_document_then_cancel_deletes_the_held_bytes(
    tg,
    fake_tg: FakeTelegram,
    db: Database,
) -> None:  # type: ignore[no-untyped-def]
    body = b"# Contacts\n\nWrite to jane.doe@example.org about the permit.\n"
    fake_tg.files["c1"] = body
    document = private_document(9400, ADMIN, "c1", "contacts.md", len(body))
    await tg[0].post(document)  # no intent: only an offer
    await until(lambda: any(keyboard(p) for p in fake_tg.of("sendMessage", ADMIN)))
    reply = private_text(9401, ADMIN, "/upload Permit contacts")
    reply["message"]["reply_to_message"] = document["message"]
    async with jobs_running(tg[0].worker):
        await tg[1].post(reply)
        await until(
            lambda: any("personal data" in p["text"] for p in fake_tg.of("sendMessage", ADMIN)), 60
        )
    held = _with_buttons(fake_tg, ADMIN, ["Publish anyway", "Cancel"])
    assert "e-mail address × 1" in held["text"] and "j*******@example.org" in held["text"]
    assert "jane.doe" not in held["text"]
    await tg[0].post(callback(9402, ADMIN, _data(held, "Cancel"), held))
    await until(lambda: any("Cancelled" in p["text"] for p in fake_tg.of("editMessageText")))
    assert await _rows(db, "SELECT title, status, data IS NULL FROM uploads") == [
        ("Permit contacts", "cancelled", True)
    ]
    assert await _rows(db, "SELECT count(*) FROM documents WHERE title = 'Permit contacts'") == [
        (0,)
    ]
    assert await _rows(db, "SELECT result FROM audit_log WHERE action = 'upload:cancelled'") == [
        ("ok",)
    ]


GROUP = -100555


def _in_group(update: dict[str, Any]) -> dict[str, Any]:
    """The same update, sent in a group instead of the private chat."""
    update["message"]["chat"] = {"id": GROUP, "type": "supergroup", "title": "Town hall"}
    return update


async def test_a_group_upload_caption_is_answered_in_the_admins_private_chat_only(
    tg,
    fake_tg: FakeTelegram,
    db: Database,
) -> None:  # type: ignore[no-untyped-def]
    fake_tg.files["g1"] = COMPLAINT
    sent = _in_group(private_document(9500, ADMIN, "g1", "complaint.md", len(COMPLAINT), "/upload"))
    async with jobs_running(tg[0].worker):
        await tg[0].post(sent)
        await until(
            lambda: any("personal data" in p["text"] for p in fake_tg.of("sendMessage", ADMIN)), 60
        )
    receipt = [p for p in fake_tg.of("sendMessage", ADMIN) if "Received" in p["text"]]
    assert receipt and "public" in receipt[0]["text"]
    held = _with_buttons(fake_tg, ADMIN, ["Publish anyway", "Cancel"])
    assert "ID number × 1" in held["text"] and "A1******89" in held["text"]
    # the group sees nothing: no receipt, no findings, no buttons
    assert fake_tg.of("sendMessage", GROUP) == [] and fake_tg.of("editMessageText", GROUP) == []
    assert await _rows(db, "SELECT status, conversation_key FROM uploads") == [("held", str(ADMIN))]


async def test_a_group_upload_reply_without_a_private_chat_gets_a_hint_and_stores_nothing(
    tg,
    fake_tg: FakeTelegram,
    db: Database,
) -> None:  # type: ignore[no-untyped-def]
    fake_tg.files["g2"] = COMPLAINT
    document = _in_group(private_document(9600, ADMIN, "g2", "complaint.md", len(COMPLAINT)))
    await tg[0].post(document)  # no intent, in a group: not even an offer
    reply = _in_group(private_text(9601, ADMIN, "/upload Complaint"))
    reply["message"]["entities"] = [{"type": "bot_command", "offset": 0, "length": 7}]
    reply["message"]["reply_to_message"] = document["message"]
    # the admin never opened a private chat with the bot: Telegram refuses to write there
    fake_tg.failing["sendChatAction"] = (403, "Forbidden: bot can't initiate conversation")
    await tg[1].post(reply)
    await until(lambda: bool(fake_tg.of("sendMessage", GROUP)))
    [hint] = fake_tg.of("sendMessage", GROUP)
    assert "private chat" in hint["text"] and not keyboard(hint)
    assert "Received" not in hint["text"]
    assert not fake_tg.of("getFile") and not fake_tg.of("sendMessage", ADMIN)
    assert await _rows(db, "SELECT count(*) FROM uploads") == [(0,)]


def _share(
    fake: FakeSlack, name: str, body: bytes, *, channel: str, ts: str, **extra: Any
) -> dict[str, Any]:
    fake.files[name] = body
    return {
        "type": "message",
        "subtype": "file_share",
        "channel": channel,
        "user": "U-ADMIN",
        "text": "",
        "ts": ts,
        "files": [
            {
                "id": f"F{ts}",
                "name": name,
                "size": len(body),
                "url_private_download": f"{fake.root}files/{name}",
            }
        ],
        **extra,
    }


async def test_a_file_shared_in_a_channel_thread_is_not_ingested(
    slack: list[SlackHarness],
    fake_slack: FakeSlack,
    db: Database,
) -> None:
    await slack[0].event(mention("passport renewal fee?", "1500.1", channel="CHR"))
    await final_posts(fake_slack, db=db)
    salaries = b"# Salaries\n\nAlice earns 90,000 a year.\n"
    share = _share(
        fake_slack, "salaries.md", salaries, channel="CHR", ts="1500.5", thread_ts="1500.1"
    )
    share["channel_type"] = "channel"
    share["text"] = f"upload <@{'UBOT'}>"  # even the upload word and a mention: not here
    async with jobs_running(slack[0].worker):
        await slack[0].event(share)
        await until(
            lambda: any(
                "not added to the knowledge base" in json.dumps(p)
                for p in fake_slack.of("chat.postMessage") + fake_slack.of("chat.update")
            )
        )
    assert fake_slack.downloads == []
    assert await _rows(db, "SELECT count(*) FROM uploads") == [(0,)]
    assert await _rows(db, "SELECT count(*) FROM documents WHERE title = 'salaries'") == [(0,)]


async def test_slack_dm_file_without_the_upload_word_is_offered_and_only_its_admin_chooses(
    slack: list[SlackHarness],
    fake_slack: FakeSlack,
    db: Database,
) -> None:
    body = b"# Parking\n\nStaff park in lot B.\n"
    share = _share(fake_slack, "parking.md", body, channel="D9", ts="1600.1", channel_type="im")
    await slack[0].event(share)
    [offer] = await final_posts(fake_slack, db=db)
    buttons = next(b for b in offer["blocks"] if b["type"] == "actions")["elements"]
    assert [b["text"]["text"] for b in buttons] == ["Add to public", "Add to internal", "Ignore"]
    assert "nothing was stored" in blocks_text(offer) and fake_slack.downloads == []
    internal = buttons[1]

    def press(user: str, ts: str) -> dict[str, Any]:
        return {
            "type": "block_actions",
            "user": {"id": user, "team_id": "T1"},
            "channel": {"id": "D9"},
            "team": {"id": "T1"},
            "trigger_id": f"t{ts}",
            "api_app_id": "A1",
            "container": {"type": "message", "channel_id": "D9", "message_ts": "1700.1"},
            "message": {"ts": "1700.1", "text": "x", "blocks": offer["blocks"]},
            "actions": [{**internal, "block_id": "b", "action_ts": ts}],
        }

    await slack[1].form({"payload": json.dumps(press("U7", "1.1"))})
    await until(lambda: bool(fake_slack.of("chat.postEphemeral")))
    # a non-admin is told "gone", privately: the offer is neither looked up nor changed
    assert "expired or was already made" in fake_slack.of("chat.postEphemeral")[0]["text"]
    assert not fake_slack.of("chat.update")
    assert fake_slack.downloads == [] and await _rows(db, "SELECT count(*) FROM uploads") == [(0,)]
    assert await _rows(db, "SELECT count(*) FROM audit_log WHERE user_id = 'U7'") == [(0,)]

    async with jobs_running(slack[0].worker):
        await slack[0].form({"payload": json.dumps(press("U-ADMIN", "1.2"))})
        await until(
            lambda: any(
                "was added" in p.get("text", "") for p in fake_slack.of("chat.postMessage")
            ),
            60,
        )
    updated = [p["text"] for p in fake_slack.of("chat.update") if "Received" in p.get("text", "")]
    assert updated and "internal" in updated[0] and "employees in Slack" in updated[0]
    assert await _rows(db, "SELECT collection FROM documents WHERE title = 'parking'") == [
        ("internal",)
    ]
