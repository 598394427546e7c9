"""Slack's agent experience on the real bolt app and serving core, against the fake Web API:
the greeting with suggested questions, live status, Stop, `/ragbot ask`, the viewed channel,
and the fallbacks when a workspace refuses the newer methods."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from graph.models import build_chat_model
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.slack.test_slack import (
    SlackHarness,
    blocks_text,
    final_posts,
    mention,
    serve_slack,
    slack_settings,
    stop_slack,
)
from tests.support.core_fixtures import DOCS, last_outcome, make_worker, until, until_settled
from tests.support.fake_openai import FakeOpenAI, planned_answer
from tests.support.fake_slack import FakeSlack
from tests.support.rubbish_faq import COUCH, RUBBISH, RUBBISH_DOCUMENT, SOFA

PLAN = '{"task_type": "simple_faq", "should_retrieve": true, "query": "passport renewal cost"}'
ANSWER = "An adult passport renewal costs 1,300 dollars and takes four working days [1]. "
ZH_USER = {"team_id": "T1", "is_restricted": False, "is_ultra_restricted": False}


@pytest.fixture
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack().start()
    yield fake
    fake.stop()


@contextlib.asynccontextmanager
async def served(
    db: Database,
    database_url: str,
    embedder: Embedder,
    fake: FakeSlack,
    *,
    answer: str | None = None,
    pace: float = 0.0,
    collection: str = "internal",
    **extra: Any,
) -> AsyncIterator[tuple[SlackHarness, FakeOpenAI | None]]:
    """One Slack worker on the sample documents (in `collection`); with `answer`, a fake
    model that plans a FAQ search and writes `answer` at `pace` seconds a piece."""
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode(), collection=collection)
    llm_server = None
    llm = None
    if answer is not None:
        llm_server = FakeOpenAI().start()
        llm_server.responder = planned_answer(PLAN, answer, pace)
        llm = build_chat_model(llm_server.url, "key", "fake", timeout=30.0)
    settings = slack_settings(fake, **extra)
    worker = await make_worker(database_url, embedder, settings, llm=llm)
    harness = await serve_slack(worker, settings)
    try:
        yield harness, llm_server
    finally:
        await stop_slack(harness)
        if llm_server is not None:
            llm_server.stop()


def home_opened(user: str, channel: str = "D9") -> dict[str, Any]:
    return {
        "type": "app_home_opened",
        "user": user,
        "channel": channel,
        "tab": "messages",
        "event_ts": "1.1",
    }


def press(
    action_id: str,
    value: str,
    *,
    user: str = "U1",
    channel: str = "C1",
    message: dict[str, Any] | None = None,
    action_ts: str = "77.1",
    response_url: str | None = None,
    block_id: str | None = None,
) -> dict[str, Any]:
    """A block_actions payload: `user` pressed the button `action_id` (in block
    `block_id`) with `value`."""
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": {"id": user, "team_id": "T1"},
        "channel": {"id": channel},
        "team": {"id": "T1"},
        "trigger_id": f"t-{action_ts}",
        "api_app_id": "A1",
        "container": {"type": "message", "channel_id": channel},
        "actions": [
            {"action_id": action_id, "value": value, "type": "button", "action_ts": action_ts}
        ],
    }
    if block_id is not None:
        payload["actions"][0]["block_id"] = block_id
    if message is not None:
        payload["message"] = message
    if response_url is not None:
        payload["response_url"] = response_url
    return {"payload": json.dumps(payload)}


async def test_opening_the_dm_greets_in_the_users_language_with_suggested_prompts(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> None:
    fake_slack.users["U9"] = {**ZH_USER, "locale": "zh-TW"}
    questions = "護照換發要多少錢？|如何申請停車許可證？"
    async with served(
        db, database_url, embedder, fake_slack, SUGGESTED_QUESTIONS_ZH_HANT=questions
    ) as (h, _):
        assert (await h.event(home_opened("U9"), "Ev-home-1")).status_code == 200
        await until(lambda: bool(fake_slack.of("chat.postMessage", channel="D9")))
        [prompts] = fake_slack.of("assistant.threads.setSuggestedPrompts")
        assert prompts["channel_id"] == "D9" and "thread_ts" not in prompts
        assert [p["message"] for p in prompts["prompts"]] == questions.split("|")
        assert prompts["title"] == "可以試著問："
        [greeting] = fake_slack.of("chat.postMessage", channel="D9")
        assert "您好" in greeting["text"]  # zh-TW: Traditional Chinese
        assert not any(b["type"] == "actions" for b in greeting["blocks"])  # prompts did it
        # the home tab's own tab, and a second visit: no second greeting, prompts again
        await h.event({**home_opened("U9"), "tab": "home"}, "Ev-home-2")
        await h.event(home_opened("U9"), "Ev-home-3")
        await until(lambda: len(fake_slack.of("assistant.threads.setSuggestedPrompts")) == 2)
        assert await h.adapter.listeners.settle()  # both visits handled…
        await until_settled(db)  # …and whatever they had to say sent
        assert len(fake_slack.of("chat.postMessage", channel="D9")) == 1


async def test_without_prompts_the_greeting_has_question_buttons_that_ask(
    db: Database,
    database_url: str,
    embedder: Embedder,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_slack.failing["assistant.threads.setSuggestedPrompts"] = "unknown_method"
    question = "How much does a passport renewal cost?"
    async with served(db, database_url, embedder, fake_slack, SUGGESTED_QUESTIONS_EN=question) as (
        h,
        _,
    ):
        with caplog.at_level(logging.WARNING, logger="bot.slack.features"):
            await h.event(home_opened("U1"), "Ev-h1")
            await until(lambda: bool(fake_slack.of("chat.postMessage", channel="D9")))
            await h.event(home_opened("U2", "D8"), "Ev-h2")
            await until(lambda: bool(fake_slack.of("chat.postMessage", channel="D8")))
        refusals = [r for r in caplog.records if "suggested" in r.getMessage().lower()]
        assert len(refusals) == 1  # tried once, warned once: then buttons without trying
        assert len(fake_slack.of("assistant.threads.setSuggestedPrompts")) == 1
        [greeting] = fake_slack.of("chat.postMessage", channel="D9")
        [buttons] = [b for b in greeting["blocks"] if b["type"] == "actions"]
        [button] = buttons["elements"]
        assert button["value"] == question
        posted = next(r for m, r in fake_slack.responses if m == "chat.postMessage")
        greeting_ts = str(posted["ts"])
        shown = {"ts": greeting_ts, "text": greeting["text"], "blocks": greeting["blocks"]}
        await h.form(press(button["action_id"], button["value"], channel="D9", message=shown))
        finals = await final_posts(fake_slack, 3, db=db)  # the two greetings, then the answer
        [answer] = [p for p in finals if "1,300" in blocks_text(p)]
        assert answer["channel"] == "D9"
        said = [e["text"] for e in answer["blocks"][0]["elements"]]
        assert said == ["You asked:", question]
        # answered in the greeting's thread: a vote there counts
        streamed = fake_slack.of("chat.startStream")[-1]
        assert streamed["thread_ts"] == greeting_ts
        feedback = next(b for b in answer["blocks"] if b.get("block_id") == "ragbot_feedback")
        value = feedback["elements"][0]["positive_button"]["value"]
        voted = {"ts": answer["ts"], "thread_ts": greeting_ts, "text": answer["text"]}
        voted["blocks"] = answer["blocks"]
        await h.form(press("ragbot_feedback", value, channel="D9", message=voted, action_ts="8.1"))
        await until(
            lambda: any(
                "feedback was recorded" in json.dumps(p) for p in fake_slack.of("chat.update")
            )
        )


async def test_a_mention_shows_live_status_until_the_answer_streams(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> None:
    async with served(db, database_url, embedder, fake_slack, answer=ANSWER * 3, pace=0.02) as (
        h,
        _,
    ):
        await h.event(mention("How much does a passport renewal cost?", "300.1"))
        [final] = await final_posts(fake_slack, db=db)
    calls = [(m, p) for m, p in fake_slack.calls]
    statuses = [i for i, (m, _) in enumerate(calls) if m == "assistant.threads.setStatus"]
    first_text = next(
        i for i, (m, p) in enumerate(calls) if m == "chat.appendStream" and p.get("markdown_text")
    )
    final_update = max(i for i, (m, _) in enumerate(calls) if m == "chat.update")
    # shown before the answer's first words, cleared as they start (never after the answer)
    assert len(statuses) == 2 and statuses[0] < first_text and statuses[1] < final_update
    shown, cleared = calls[statuses[0]][1], calls[statuses[1]][1]
    assert shown["thread_ts"] == "300.1" and shown["status"]
    assert "Checking sources…" in shown["loading_messages"]
    assert cleared["status"] == ""
    # the answer ends with Slack's feedback buttons and the sources
    kinds = [b["type"] for b in final["blocks"]]
    assert "context_actions" in kinds and "context" in kinds


async def test_stop_mid_stream_cancels_the_model_keeps_the_text_and_the_next_question_works(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> None:
    slow = ANSWER * 12  # well over ten seconds at this pace
    async with served(db, database_url, embedder, fake_slack, answer=slow, pace=0.1) as (h, llm):
        assert llm is not None
        await h.event(mention("How much does a passport renewal cost?", "400.1"))
        await until(
            lambda: any(p.get("markdown_text") for p in fake_slack.of("chat.appendStream")), 30
        )
        [opened] = fake_slack.of("chat.startStream")
        [stop] = [c["blocks"][0] for c in opened["chunks"] if c["type"] == "blocks"]
        value = stop["elements"][0]["value"]
        # someone else's press changes nothing and is told so, privately
        await h.form(press("ragbot_stop", value, user="U2", action_ts="1.1"))
        await until(lambda: bool(fake_slack.of("chat.postEphemeral", user="U2")))
        assert "Only the person" in fake_slack.of("chat.postEphemeral", user="U2")[0]["text"]
        await h.form(press("ragbot_stop", value, user="U1", action_ts="1.2"))
        [final] = await final_posts(fake_slack, db=db)
        requests, pieces = len(llm.requests), llm.pieces_sent
        # the turn is over (final_posts): its model call ends at once when it was cancelled,
        # but only once the whole answer is written when it was not
        await until(lambda: llm.streaming == 0)
        assert len(llm.requests) == requests and llm.pieces_sent <= pieces + 2
        assert "Stopped" in final["text"] and "1,300 dollars" in final["text"]
        assert final["text"].count("1,300") < 12  # a part of the answer, not all of it
        assert await last_outcome(db) == "stopped"
        # the next question in the thread is answered as usual (the model writes it all)
        llm.responder = planned_answer(PLAN, ANSWER)
        await h.event(mention("And how long does it take?", "400.9", thread="400.1"))
        finals = await final_posts(fake_slack, 2, db=db)
        assert "Stopped" not in finals[-1]["text"] and "four working days" in finals[-1]["text"]


async def test_stop_pressed_on_another_worker_stops_the_turn_where_it_runs(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> None:
    slow = ANSWER * 12
    async with served(db, database_url, embedder, fake_slack, answer=slow, pace=0.1) as (h, llm):
        assert llm is not None
        settings = slack_settings(fake_slack)
        # a second worker that takes no deliveries: presses only (as a load balancer sends)
        other = await serve_slack(
            await make_worker(database_url, embedder, settings), settings, sweeping=False
        )
        try:
            await h.event(mention("How much does a passport renewal cost?", "450.1"))
            await until(
                lambda: any(p.get("markdown_text") for p in fake_slack.of("chat.appendStream")), 30
            )
            [opened] = fake_slack.of("chat.startStream")
            [stop] = [c["blocks"][0] for c in opened["chunks"] if c["type"] == "blocks"]
            await other.form(press("ragbot_stop", stop["elements"][0]["value"], user="U1"))
            [final] = await final_posts(fake_slack, db=db)
            assert "Stopped" in final["text"]
            assert not fake_slack.of("chat.postEphemeral")  # no "already finished" said
        finally:
            await stop_slack(other)


async def test_ragbot_ask_answers_privately_and_share_posts_it_once(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> None:
    async with served(db, database_url, embedder, fake_slack) as (h, _):
        command = {
            "command": "/ragbot",
            "text": "ask How much does a passport renewal cost?",
            "user_id": "U1",
            "channel_id": "C5",
            "team_id": "T1",
            "trigger_id": "trig-ask-1",
            "response_url": f"{fake_slack.root}respond/ask1",
        }
        assert (await h.form(command)).status_code == 200
        await until(lambda: any(p.get("blocks") for p in fake_slack.of("respond/ask1")))
        private = next(p for p in fake_slack.of("respond/ask1") if p.get("blocks"))
        assert private["response_type"] == "ephemeral" and private["replace_original"] is True
        assert "1,300" in blocks_text(private)
        [share_row] = [b for b in private["blocks"] if b.get("block_id") == "ragbot_share"]
        share, keep = share_row["elements"]
        assert not fake_slack.of("chat.postMessage")  # nothing in the channel yet
        url = f"{fake_slack.root}respond/ask1"
        for n in range(2):  # pressed twice: posted once
            await h.form(
                press(
                    share["action_id"],
                    share["value"],
                    channel="C5",
                    action_ts=f"5.{n}",
                    response_url=url,
                )
            )
        await until(lambda: bool(fake_slack.of("chat.postMessage", channel="C5")))
        assert await h.adapter.listeners.settle()  # both presses handled…
        await until_settled(db)  # …and whatever they had to say sent
        [shared] = fake_slack.of("chat.postMessage", channel="C5")
        assert "1,300" in blocks_text(shared) and "Shared by <@U1>" in blocks_text(shared)
        assert "Sources" in blocks_text(shared)
        assert any(
            "Shared in the channel" in blocks_text(p)
            for p in fake_slack.of("respond/ask1")
            if p.get("blocks")
        )
        # another user cannot share someone's private answer
        await h.form(
            press(share["action_id"], share["value"], user="U2", channel="C5", action_ts="6.1")
        )
        assert await h.adapter.listeners.settle()
        await until_settled(db)
        assert len(fake_slack.of("chat.postMessage", channel="C5")) == 1
        assert keep["action_id"] == "ragbot_keep_private"


async def test_refused_agent_features_fall_back_to_todays_behaviour_with_one_warning_each(
    db: Database,
    database_url: str,
    embedder: Embedder,
    fake_slack: FakeSlack,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_slack.failing["assistant.threads.setStatus"] = "not_allowed_token_type"
    fake_slack.unknown_blocks = {"context_actions", "blocks"}  # no feedback block, no stream blocks
    async with served(db, database_url, embedder, fake_slack) as (h, _):
        with caplog.at_level(logging.WARNING, logger="bot.slack.features"):
            await h.event(mention("How much does a passport renewal cost?", "500.1"))
            await final_posts(fake_slack, db=db)
            await h.event(mention("How much does a passport renewal cost?", "501.1"))
            finals = await final_posts(fake_slack, 2, db=db)
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 3, warnings  # status, feedback block, buttons in a stream: once each
    assert len(fake_slack.of("assistant.threads.setStatus")) == 1  # not tried again
    last = finals[-1]
    kinds = [b["type"] for b in last["blocks"]]
    assert "context_actions" not in kinds and "actions" in kinds  # the plain buttons
    assert "1,300" in blocks_text(last)
    # the second stream opened without asking for blocks again
    second = fake_slack.of("chat.startStream")[-1]
    assert all(c["type"] != "blocks" for c in second["chunks"])


async def test_the_channel_a_user_views_gives_its_collections_in_the_dm(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> None:
    async with served(
        db,
        database_url,
        embedder,
        fake_slack,
        collection="passports",
        SLACK_CHANNEL_COLLECTIONS="C777:passports",
    ) as (h, _):
        question = {"type": "message", "channel_type": "im", "user": "U1", "channel": "D1"}
        await h.event({**question, "text": "How much does a passport renewal cost?", "ts": "9.1"})
        [refused] = await final_posts(fake_slack, db=db)
        assert "1,300" not in blocks_text(refused)  # the DM alone cannot read `passports`
        context = {"entities": [{"type": "slack#/types/channel_id", "value": "C777"}]}
        await h.event({"type": "app_context_changed", "user": "U1", "context": context})
        await h.event({**question, "text": "How much does a passport renewal cost?", "ts": "9.2"})
        finals = await final_posts(fake_slack, 2, db=db)
        assert "1,300" in blocks_text(finals[-1])


def test_the_manifest_asks_for_the_agent_experience_and_what_it_listens_to() -> None:
    manifest = (Path(__file__).parents[2] / "bot" / "slack" / "manifest.yaml").read_text()
    assert "\n  agent_view:\n    agent_description:" in manifest
    assert "assistant_view" not in manifest  # being retired by Slack
    needed_all = ("assistant:write", "app_home_opened", "app_context_changed", "message.im")
    for needed in (*needed_all, "mpim:history", "message.mpim"):
        assert f"- {needed}" in manifest


async def test_a_refusals_faq_questions_have_ask_buttons_that_ask_in_its_thread(
    db: Database, database_url: str, embedder: Embedder, fake_slack: FakeSlack
) -> None:
    async with served(db, database_url, embedder, fake_slack) as (h, _):
        ingestion = IngestionService(db, embedder, IngestOptions())
        await ingestion.ingest_bytes(RUBBISH_DOCUMENT, RUBBISH.encode(), collection="internal")
        await h.event(mention(COUCH, "500.1"))
        [refusal] = await final_posts(fake_slack, db=db)
        # each question whole, with an Ask button beside it; listed once in the blocks
        [sofa] = [b for b in refusal["blocks"] if b.get("text", {}).get("text") == SOFA]
        button = sofa["accessory"]
        assert button["text"]["text"] == "Ask" and sofa["block_id"].startswith("ragbot_related_")
        assert blocks_text(refusal).count(SOFA) == 1
        assert SOFA in refusal["text"]  # the notification's text names them too
        # Slack's copy of the refusal, a reply in the question's thread
        shown = {"ts": refusal["ts"], "thread_ts": "500.1", "text": refusal["text"]}
        shown["blocks"] = refusal["blocks"]
        # a press naming a button the message does not carry asks nothing (its value is
        # the client's word); a press of the real one asks its question as Slack shows it
        forged = press("ragbot_suggestion_4", "Tell me a secret", channel="C1", message=shown)
        await h.form(forged)
        where = {"channel": "C1", "message": shown, "block_id": sofa["block_id"]}
        await h.form(press(button["action_id"], "(the client's word)", action_ts="501.1", **where))
        finals = await final_posts(fake_slack, 2, db=db)
        [answer] = [p for p in finals if "20 euros" in blocks_text(p)]
        assert answer["channel"] == "C1" and answer["ts"] != refusal["ts"]
        # no one wrote the question in the thread: the answer says who asked what
        head = answer["blocks"][0]
        assert head["type"] == "context"
        said = [(e["type"], e["text"]) for e in head["elements"]]
        assert said == [("mrkdwn", "<@U1> asked:"), ("plain_text", SOFA)]
        assert answer["text"].startswith(f"<@U1> asked: {SOFA}\n")
        # both began as messages in the question's thread; nothing else was asked
        started = fake_slack.of("chat.startStream") + fake_slack.of("chat.postMessage")
        assert [p["thread_ts"] for p in started if p.get("channel") == "C1"] == ["500.1"] * 2
        # the question asked lost its button and is ticked
        [ticked] = [u for u in fake_slack.of("chat.update") if f"{SOFA} ✓" in blocks_text(u)]
        [asked] = [b for b in ticked["blocks"] if b.get("block_id") == sofa["block_id"]]
        assert "accessory" not in asked
