"""Telegram's newer conveniences on the real PTB Application and serving core, against the fake
Bot API: /start suggestions, deep links, 👀 in groups, descriptions per language, Stop, long
answers, and the fallbacks when the Bot API refuses the newer methods."""

from __future__ import annotations

import asyncio
import base64
import logging
from typing import Any

import pytest

from bot.telegram.render import html_messages
from storage.db import Database
from storage.embeddings import Embedder
from tests.support.core_fixtures import last_outcome, until
from tests.support.fake_telegram import (
    BOT_USERNAME,
    FakeTelegram,
    callback,
    group_text,
    private_text,
)
from tests.telegram.test_telegram import (
    answered,
    docs,
    fake_tg,
    keyboard,
    llm_harness,
    start_harness,
    stop_harness,
)

__all__ = ["docs", "fake_tg"]  # fixtures used here
pytestmark = pytest.mark.usefixtures("docs")
ANSWER_WORDS = "An adult passport renewal costs 1,300 dollars and takes four working days [1]. "


def _returned(fake: FakeTelegram, params: dict[str, Any]) -> dict[str, Any]:
    """The message Telegram returned for a sendMessage call, with its keyboard."""
    message = dict(next(m for m in fake.sent if m.get("text") == params["text"]))
    message["reply_markup"] = params["reply_markup"]
    return message


async def test_start_greets_with_suggested_questions_and_descriptions_are_set(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    questions = "住宅區停車許可證一年多少錢？|護照換發要多少錢？"
    h = await start_harness(database_url, embedder, fake_tg, SUGGESTED_QUESTIONS_ZH_HANT=questions)
    try:
        descriptions = {p.get("language_code"): p for p in fake_tg.of("setMyDescription")}
        shorts = {p.get("language_code"): p for p in fake_tg.of("setMyShortDescription")}
        assert set(descriptions) == set(shorts) == {None, "zh"}
        assert "official documents" in descriptions[None]["description"]
        assert "正式文件" in descriptions["zh"]["description"]
        assert len(shorts["zh"]["short_description"]) <= 120
        await h.post(private_text(9601, 1601, "/start", language="zh-TW"))
        [welcome] = await until_sent(fake_tg, 1601)
        assert "您好" in welcome["text"]
        rows = welcome["reply_markup"]["keyboard"]
        assert [row[0]["text"] for row in rows] == questions.split("|")
        assert welcome["reply_markup"]["one_time_keyboard"] is True
        # a tap sends the question as the user: answered like any question
        await h.post(private_text(9602, 1601, questions.split("|")[0], language="zh-TW"))
        [answer] = await answered(fake_tg, 1601)
        assert "一千二百" in answer["text"]
    finally:
        await stop_harness(h)


async def until_sent(fake: FakeTelegram, chat_id: int, count: int = 1) -> list[dict[str, Any]]:
    await until(lambda: len(fake.of("sendMessage", chat_id)) >= count)
    return fake.of("sendMessage", chat_id)


async def test_a_deep_link_opens_with_a_question_about_its_topic(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    h = await start_harness(database_url, embedder, fake_tg)
    try:
        await h.post(private_text(9611, 1611, "/start passport_renewal_cost"))
        [answer] = await answered(fake_tg, 1611)
        assert "1,300" in answer["text"]
        # a whole question in any script: q_<base64url of its UTF-8>
        asked = base64.urlsafe_b64encode("住宅區停車許可證一年多少錢？".encode()).decode()
        await h.post(private_text(9612, 1612, f"/start q_{asked.rstrip('=')}"))
        [answer] = await answered(fake_tg, 1612)
        assert "停車" in answer["text"]
    finally:
        await stop_harness(h)


async def test_a_group_question_gets_eyes_at_once_cleared_when_answered(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    h = await start_harness(database_url, embedder, fake_tg)
    try:
        update = group_text(9621, -100777, 77, f"@{BOT_USERNAME} passport renewal fee?")
        await h.post(update)
        await until(lambda: len(fake_tg.of("setMessageReaction", -100777)) >= 2)
        seen, cleared = fake_tg.of("setMessageReaction", -100777)
        assert int(seen["message_id"]) == update["message"]["message_id"]
        assert seen["reaction"] == [{"type": "emoji", "emoji": "👀"}]
        assert not cleared.get("reaction")
        calls = [m for m, p in fake_tg.calls if str(p.get("chat_id")) == "-100777"]
        # 👀 first (no message), the answer, then the reaction goes
        assert calls.index("setMessageReaction") < calls.index("sendMessage")
        assert len(calls) - 1 - calls[::-1].index("setMessageReaction") > calls.index("sendMessage")
    finally:
        await stop_harness(h)


async def test_stop_in_edit_mode_cancels_the_model_and_keeps_what_was_written(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram, db: Database
) -> None:
    slow = ANSWER_WORDS * 12
    async with llm_harness(
        database_url, embedder, fake_tg, slow, pace=0.1, TELEGRAM_DRAFTS=False
    ) as h:
        assert h.llm is not None
        await h.post(private_text(9631, 1631, "How much does a passport renewal cost?"))
        await until(lambda: bool(fake_tg.of("sendMessage", 1631)), 30)
        preview = fake_tg.of("sendMessage", 1631)[0]
        [stop] = keyboard(preview)
        assert stop["text"] == "⏹ Stop"
        shown = _returned(fake_tg, preview)
        await h.post(callback(9632, 1631, stop["callback_data"], shown))
        await until(lambda: any("Stopped" in p["text"] for p in fake_tg.of("editMessageText")))
        requests, pieces = len(h.llm.requests), h.llm.pieces_sent
        await asyncio.sleep(1.0)
        assert len(h.llm.requests) == requests and h.llm.pieces_sent <= pieces + 2
        final = next(p for p in fake_tg.of("editMessageText") if "Stopped" in p["text"])
        assert "1,300 dollars" in final["text"]
        assert all(b["text"] != "⏹ Stop" for b in keyboard(final))
        assert await last_outcome(db) == "stopped"


async def test_telegrams_own_stop_button_on_a_draft_stops_the_turn(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    slow = ANSWER_WORDS * 12
    async with llm_harness(database_url, embedder, fake_tg, slow, pace=0.1) as h:
        assert h.llm is not None
        await h.post(private_text(9641, 1641, "How much does a passport renewal cost?"))
        await until(lambda: bool(fake_tg.of("sendMessageDraft", 1641)), 30)
        draft = fake_tg.of("sendMessageDraft", 1641)[0]
        assert draft["can_stop"] in (True, "true")
        stopped = {
            "update_id": 9642,
            "stopped_message_generation": {
                "chat": {"id": 1641, "type": "private"},
                "draft_id": int(draft["draft_id"]),
            },
        }
        assert (await h.post(stopped)).status_code == 200
        [final] = await answered(fake_tg, 1641)
        requests = len(h.llm.requests)
        await asyncio.sleep(1.0)
        assert len(h.llm.requests) == requests
        assert "Stopped" in final["text"] and "1,300 dollars" in final["text"]


async def test_refused_new_methods_fall_back_with_one_warning_each(
    database_url: str,
    embedder: Embedder,
    fake_tg: FakeTelegram,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake_tg.failing["setMessageReaction"] = (400, "Bad Request: method is not available")
    fake_tg.failing["setMyDescription"] = (404, "Not Found")
    with caplog.at_level(logging.WARNING, logger="bot.telegram.features"):
        h = await start_harness(database_url, embedder, fake_tg)
        try:
            for n in range(2):  # one after the other: the second comes after the refusal
                text_ = f"@{BOT_USERNAME} passport renewal fee?"
                await h.post(group_text(9651 + n, -100778, 78, text_))

                def answered(n: int = n) -> bool:
                    return len(fake_tg.of("sendMessage", -100778)) > n

                await until(answered)
            await asyncio.sleep(0.5)
        finally:
            await stop_harness(h)
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 2, warnings  # reactions, descriptions: once each
    assert len(fake_tg.of("setMessageReaction")) == 1  # not tried again
    assert not fake_tg.of("setMyShortDescription")  # descriptions given up at once
    assert all("1,300" in p["text"] for p in fake_tg.of("sendMessage", -100778))


def test_a_long_answer_shows_its_lead_and_the_rest_expandable() -> None:
    sentence = "The renewal needs the old passport, a photo and the form. "
    long_answer = sentence * 40  # about 2,300 characters: one message
    [message] = html_messages(long_answer + "<b>&</b>", expand=True)
    lead, _, rest = message.partition("\n<blockquote expandable>")
    assert lead.endswith("form.") and len(lead) <= 500
    assert rest.endswith("&lt;b&gt;&amp;&lt;/b&gt;</blockquote>")  # escaped, never cut
    assert html_messages("A short answer.", expand=True) == ["A short answer."]
    assert "blockquote" not in html_messages(long_answer)[0]  # a command's reply: as it is
