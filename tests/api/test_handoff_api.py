"""A web asker hands a question to a person: staff answer from Slack, the page collects it."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from storage.embeddings import Embedder
from tests.api.conftest import api_harness
from tests.handoff.harness import STAFF, STAFF_ROOM, eventually, recorded, staff_posts
from tests.handoff.harness import thread_message as staff_says
from tests.support.fake_slack import FakeSlack

MISSING = "Where do I register my dog?"
TAB_1 = "browser-tab-0000000001"  # conversation ids: 16 characters or more
TAB_2 = "browser-tab-0000000002"


async def _mailbox(client: httpx.AsyncClient, conversation: str, after: int = 0) -> dict[str, Any]:
    response = await client.get(f"/api/v1/conversations/{conversation}/messages?after={after}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_web_asker_to_slack_staff_and_back(database_url: str, embedder: Embedder) -> None:
    fake = FakeSlack().start()
    try:
        async with api_harness(
            database_url,
            embedder,
            slack=fake,
            HANDOFF_SLACK_CHANNEL=STAFF_ROOM,
            HANDOFF_STAFF_USER_IDS=f"slack:{STAFF}",
        ) as h:
            assert h.slack is not None
            web, other_tab = h.client("public"), h.client("public")
            refused = (
                await web.post("/api/v1/ask", json={"question": MISSING, "conversation_id": TAB_1})
            ).json()
            assert refused["outcome"] == "refused" and refused["handoff"] is True
            ask = {"answer_id": refused["answer_id"], "conversation_id": TAB_1}
            # another visitor of the site (same key, another conversation) cannot take it
            stolen = await other_tab.post("/api/v1/handoff", json={**ask, "conversation_id": TAB_2})
            assert stolen.status_code == 404
            opened = await web.post("/api/v1/handoff", json=ask)
            assert opened.status_code == 200 and opened.json()["with_staff"] is True
            card, reply = (await eventually(lambda: staff_posts(fake)))[0]
            assert MISSING in card["text"] and "api" in card["text"]
            state = await _mailbox(web, TAB_1)
            for _ in range(100):
                if state["messages"]:
                    break
                await asyncio.sleep(0.05)
                state = await _mailbox(web, TAB_1)
            assert state["messages"][0]["back"] is True, state  # "a person will reply here"
            seen = state["messages"][-1]["id"]

            # while the case is open, the asker's messages go to the staff's thread
            more = await web.post(
                "/api/v1/ask", json={"question": "It is a small dog.", "conversation_id": TAB_1}
            )
            assert more.status_code == 200 and more.json()["outcome"] == "with_staff"
            await eventually(
                lambda: [
                    p
                    for p, _ in staff_posts(fake, thread_ts=reply["ts"])
                    if "small dog" in p["text"]
                ]
            )
            # a staff reply in the card's thread reaches the page's mailbox, once
            await recorded(h.worker.db, "slack", f"{STAFF_ROOM}:{reply['ts']}")
            await h.slack.event(staff_says("Register at the Animal Office.", "950.1", reply["ts"]))
            for _ in range(200):
                state = await _mailbox(web, TAB_1, seen)
                if state["messages"]:
                    break
                await asyncio.sleep(0.05)
            [staff] = state["messages"]
            assert "Animal Office" in staff["text"] and "From our staff" in staff["text"]
            assert (await _mailbox(other_tab, TAB_2))["messages"] == []  # nothing leaks across

            # back to the bot: the case closes and the bot answers again
            back = await web.post("/api/v1/handoff/close", json={"conversation_id": TAB_1})
            assert back.status_code == 200 and back.json()["with_staff"] is False
            again = await web.post(
                "/api/v1/ask", json={"question": "passport fee?", "conversation_id": TAB_1}
            )
            assert again.json()["outcome"] == "answered"
            none_open = await web.post("/api/v1/handoff/close", json={"conversation_id": TAB_1})
            assert none_open.status_code == 404
    finally:
        fake.stop()


async def test_without_a_staff_room_there_is_no_hand_off(
    database_url: str, embedder: Embedder
) -> None:
    async with api_harness(database_url, embedder) as h:
        answer = (await h.client("public").post("/api/v1/ask", json={"question": MISSING})).json()
        assert answer["handoff"] is False
        ask = {"answer_id": answer["answer_id"], "conversation_id": answer["conversation_id"]}
        off = await h.client("public").post("/api/v1/handoff", json=ask)
        assert off.status_code == 404 and off.json()["code"] == "handoff_off"
