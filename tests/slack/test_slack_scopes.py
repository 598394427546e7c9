"""Who sees what from Slack, through the real bolt app and the fake Slack API: a form
updated from chat keeps its audience; a vote counts only in the answer's own thread."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from sqlalchemy import text

from bot.core.messages import Reply
from storage.db import Database
from storage.forms import FormService
from tests.slack.test_slack import blocks_text, fake_slack, final_posts, mention, slack
from tests.support.core_fixtures import collect, message, only, until_settled
from tests.support.fake_slack import FakeSlack

__all__ = ["fake_slack", "slack"]  # fixtures used here, defined with the adapter's tests

STAFF_FORM = "Staff leave form"


def dm(text_: str, ts: str, user: str = "U-ADMIN") -> dict[str, Any]:
    return {
        "type": "message",
        "channel_type": "im",
        "channel": "D9",
        "user": user,
        "text": text_,
        "ts": ts,
    }


async def form_row(db: Database) -> tuple[str, str, list[str], str | None]:
    async with db.sessions() as session:
        row = (
            await session.execute(
                text("SELECT url, collection, aliases, language FROM forms WHERE name = :n"),
                {"n": STAFF_FORM},
            )
        ).one()
    return row[0], row[1], list(row[2]), row[3]


async def test_chat_addform_on_an_internal_form_keeps_it_internal(
    slack: list[Any], fake_slack: FakeSlack, db: Database
) -> None:
    await FormService(db, 100_000).add(
        STAFF_FORM,
        "https://intranet.example.org/leave",
        aliases=["leave form", "請假單"],
        language="zh-hant",
        collection="internal",
    )
    await slack[0].event(
        dm(f'addform "{STAFF_FORM}" https://intranet.example.org/leave-2027', "1.1")
    )
    [reply] = await final_posts(fake_slack, db=db)
    shown = blocks_text(reply) if reply.get("blocks") else reply["text"]
    assert "internal" in shown and STAFF_FORM in shown
    assert await form_row(db) == (
        "https://intranet.example.org/leave-2027",
        "internal",
        ["leave form", "請假單"],
        "zh-hant",
    )
    core = slack[0].worker.core
    # a Telegram citizen still does not get it, by list or by asking for it
    assert STAFF_FORM not in [f["name"] for f in await core.forms("telegram")]
    asked = await collect(core.handle(message("I need the staff leave form", platform="telegram")))
    assert not any(STAFF_FORM in json.dumps(getattr(e, "forms", [])) for e in asked)
    # a Telegram admin can neither publish it nor edit it where citizens cannot read
    for args in (
        (STAFF_FORM, "https://evil.example.org", "collection=public"),
        (STAFF_FORM, "https://evil.example.org"),
        ("New staff form", "https://evil.example.org", "collection=internal"),
    ):
        events = await collect(
            core.handle(message("", platform="telegram", user="42", command="addform", args=args))
        )
        [refusal] = only(events, Reply)
        assert refusal.kind == "form_collection_refused" and "Nothing changed" in refusal.text
    assert (await form_row(db))[:2] == ("https://intranet.example.org/leave-2027", "internal")
    async with db.sessions() as session:
        names = set((await session.execute(text("SELECT name FROM forms"))).scalars())
    assert names == {STAFF_FORM}


async def test_a_vote_from_another_thread_is_not_counted(
    slack: list[Any], fake_slack: FakeSlack, db: Database
) -> None:
    await slack[0].event(mention("passport renewal fee?", "610.1"))
    [final] = await final_posts(fake_slack, db=db)
    button = next(b for b in final["blocks"] if b.get("block_id") == "ragbot_feedback")
    value = button["elements"][0]["positive_button"]["value"]

    def click(thread: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "type": "block_actions",
            "user": {"id": "U7", "team_id": "T1"},
            "channel": {"id": "C1"},
            "team": {"id": "T1"},
            "trigger_id": "t1",
            "api_app_id": "A1",
            "container": {"type": "message", "channel_id": "C1", "message_ts": "9.9"},
            "message": {"ts": "9.9", "thread_ts": thread, "text": "x", "blocks": blocks},
            "actions": [
                {
                    "action_id": "ragbot_feedback",
                    "value": value,
                    "block_id": "ragbot_feedback",
                    "type": "feedback_buttons",
                }
            ],
        }

    # the answer's buttons on a message in another thread, then a message without them
    await slack[0].form({"payload": json.dumps(click("999.1", final["blocks"]))})
    await slack[0].form({"payload": json.dumps(click("610.1", []))})
    assert await slack[0].adapter.listeners.settle()  # both presses handled…
    await until_settled(db)  # …and whatever they had to say sent
    async with db.sessions() as session:
        assert (await session.execute(text("SELECT count(*) FROM feedback"))).scalar() == 0
    assert not any("feedback was recorded" in json.dumps(p) for p in fake_slack.of("chat.update"))
    # the same click in the answer's own thread counts
    await slack[0].form({"payload": json.dumps(click("610.1", final["blocks"]))})
    for _ in range(100):
        async with db.sessions() as session:
            if (await session.execute(text("SELECT count(*) FROM feedback"))).scalar() == 1:
                break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the honest vote was not stored")
    # the forged clicks went in first: had either been counted late, there would be more
    assert await slack[0].adapter.listeners.settle()
    await until_settled(db)
    async with db.sessions() as session:
        assert (await session.execute(text("SELECT count(*) FROM feedback"))).scalar() == 1
