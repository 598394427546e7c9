"""A refusal's FAQ questions on Telegram: buttons under the refusal that ask them, on the
real PTB app and serving core against the fake Bot API."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from bot.telegram.asked_line import asked_line
from bot.telegram.render import answer_keyboard, answer_messages, headed, html_messages
from graph.events import FinalAnswer, TurnResult
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.support.core_fixtures import until, until_settled
from tests.support.fake_telegram import (
    BOT_USERNAME,
    FakeTelegram,
    callback,
    group_text,
    private_text,
)
from tests.support.rubbish_faq import COUCH, RUBBISH, RUBBISH_DOCUMENT, SOFA
from tests.telegram.test_telegram import docs, fake_tg, keyboard, start_harness, stop_harness
from textkit.catalog import say

__all__ = ["docs", "fake_tg"]  # fixtures used here


@pytest.fixture
async def rubbish(docs: None, db: Database, embedder: Embedder) -> None:
    """The sample documents and the rubbish FAQ, public."""
    ingestion = IngestionService(db, embedder, IngestOptions())
    await ingestion.ingest_bytes(RUBBISH_DOCUMENT, RUBBISH.encode(), collection="public")


def _shown(fake: FakeTelegram, sent: dict[str, Any]) -> dict[str, Any]:
    """Telegram's copy of a message the bot sent, with its keyboard (what a press carries)."""
    message = dict(next(m for m in fake.sent if m.get("text") == sent["text"]))
    message["reply_markup"] = sent["reply_markup"]
    return message


def _with(fake: FakeTelegram, chat_id: int, words: str) -> list[dict[str, Any]]:
    return [p for p in fake.of("sendMessage", chat_id) if words in p["text"]]


async def _refusal(fake: FakeTelegram, chat_id: int) -> dict[str, Any]:
    """The refusal offering the rubbish FAQ's questions."""
    await until(lambda: bool(_with(fake, chat_id, "Related questions")), timeout=30)
    [refusal] = _with(fake, chat_id, "Related questions")
    return refusal


def _sofa_button(refusal: dict[str, Any]) -> dict[str, Any]:
    """The numbered button of the sofa question, whose number the text's list shows."""
    [line] = [x for x in refusal["text"].splitlines() if x.endswith(f". {SOFA}")]
    number = line.split(".")[0]
    [button] = [b for b in keyboard(refusal) if b["text"] == number]
    assert button["callback_data"] == f"rq:{int(number) - 1}"
    return button


@pytest.mark.usefixtures("rubbish")
async def test_a_refusals_faq_questions_are_numbered_buttons_that_ask_them(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram, db: Database
) -> None:
    h = await start_harness(database_url, embedder, fake_tg)
    try:
        await h.post(private_text(9801, 1801, COUCH))
        refusal = await _refusal(fake_tg, 1801)
        # listed once, whole and numbered, under an intro saying what the numbers do
        assert refusal["text"].count(SOFA) == 1
        assert "Press a question's number to ask it:" in html.unescape(refusal["text"])
        button = _sofa_button(refusal)
        shown = _shown(fake_tg, refusal)
        await h.post(callback(9802, 1801, button["callback_data"], shown))
        await until(lambda: bool(_with(fake_tg, 1801, "20 euros")), timeout=30)
        [answer] = _with(fake_tg, 1801, "20 euros")
        # answered under the refusal, saying what was asked, the pressed button ticked
        assert answer["reply_parameters"]["message_id"] == shown["message_id"]
        assert answer["text"].startswith(f"<i>You asked: {html.escape(SOFA)}</i>\n\n")
        [ticked] = fake_tg.of("editMessageReplyMarkup", 1801)
        assert f"{button['text']} ✓" in [b["text"] for b in keyboard(ticked)]
        # the same press delivered again, a press by someone else in this private chat,
        # data naming no button the message carries, a press on the ticked number:
        # nothing more is asked (the last one says why)
        await h.post(callback(9802, 1801, button["callback_data"], shown))
        await h.post(callback(9804, 1899, button["callback_data"], shown))
        await h.post(callback(9805, 1801, "rq:4", shown))
        after = {**shown, "reply_markup": ticked["reply_markup"]}
        await h.post(callback(9806, 1801, button["callback_data"], after))
        await until_settled(db)
        assert len(_with(fake_tg, 1801, "20 euros")) == 1
        assert len(fake_tg.of("answerCallbackQuery")) >= 4  # every spinner stopped
        said = [a["text"] for a in fake_tg.of("answerCallbackQuery") if a.get("text")]
        assert said == ["You asked this one already."]
        # typing the number asks it too
        await h.post(private_text(9807, 1801, COUCH))
        await until(lambda: len(_with(fake_tg, 1801, "Related questions")) == 2, timeout=30)
        await h.post(private_text(9808, 1801, button["text"]))
        await until(lambda: len(_with(fake_tg, 1801, "20 euros")) == 2, timeout=30)
    finally:
        await stop_harness(h)


@pytest.mark.usefixtures("rubbish")
async def test_in_a_group_a_press_is_answered_under_the_refusal(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    h = await start_harness(database_url, embedder, fake_tg)
    try:
        await h.post(group_text(9811, -100811, 81, f"@{BOT_USERNAME} {COUCH}"))
        refusal = await _refusal(fake_tg, -100811)
        button = _sofa_button(refusal)
        shown = _shown(fake_tg, refusal)
        # another member
        await h.post(callback(9812, 82, button["callback_data"], shown, first_name="Mei <Lin>"))
        await until(lambda: bool(_with(fake_tg, -100811, "20 euros")), timeout=30)
        [answer] = _with(fake_tg, -100811, "20 euros")
        assert answer["reply_parameters"]["message_id"] == shown["message_id"]
        # the group reads who asked what (the name as text, never markup)
        head = f'<i><a href="tg://user?id=82">Mei &lt;Lin&gt;</a> asked: {html.escape(SOFA)}</i>'
        assert answer["text"].startswith(head)
        # ticked for the one who pressed it, the button still asks for everyone else
        [ticked] = fake_tg.of("editMessageReplyMarkup", -100811)
        after = {**shown, "reply_markup": ticked["reply_markup"]}
        await h.post(callback(9813, 83, button["callback_data"], after))
        await until(lambda: len(_with(fake_tg, -100811, "20 euros")) == 2, timeout=30)
    finally:
        await stop_harness(h)


def test_a_long_refusals_questions_stay_outside_its_folded_part() -> None:
    questions = [f"Question {n}: " + "how do bulky items get collected " * 5 for n in range(1, 6)]
    questions = [" ".join(q.split()) + "?" for q in questions]
    refusal = "Sorry, our documents don't answer this. " + "Call the desk. " * 90
    text = "\n".join([refusal, "", say("related_questions", "en"), *(f"- {q}" for q in questions)])
    result = TurnResult(text, "en", None, [], [], [], 1, 0, "t", {}, related_questions=questions)
    [message] = answer_messages(FinalAnswer.of(result))
    folded, _, after = message.partition("</blockquote>")
    assert "<blockquote expandable>" in folded  # the long refusal folds…
    for n, question in enumerate(questions, 1):
        assert f"{n}. {question}" in after  # …its numbered questions stay in view
    keyboard_ = answer_keyboard(FinalAnswer.of(result))
    assert keyboard_ is not None
    assert [b.text for row in keyboard_.inline_keyboard for b in row] == ["1", "2", "3", "4", "5"]


@pytest.mark.usefixtures("rubbish")
async def test_a_press_over_the_rate_limit_leaves_the_number_to_press_again(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram, db: Database
) -> None:
    h = await start_harness(database_url, embedder, fake_tg, RATE_LIMIT_PER_MINUTE=1)
    try:
        await h.post(private_text(9821, 1821, COUCH))
        refusal = await _refusal(fake_tg, 1821)
        button = _sofa_button(refusal)
        await h.post(callback(9822, 1821, button["callback_data"], _shown(fake_tg, refusal)))
        await until_settled(db)
        assert not _with(fake_tg, 1821, "20 euros")  # over the limit: not answered…
        assert not fake_tg.of("editMessageReplyMarkup", 1821)  # …and not ticked
    finally:
        await stop_harness(h)


def test_who_asked_heads_the_answer_in_every_language_and_length() -> None:
    route = {"asked": "Where do  I\nbring <old> paint?", "asker": "Ana", "group": True}
    short = TurnResult("Take it to the depot. [1]", "en", None, [], [], [], 1, 0, "t", {})
    [message] = answer_messages(FinalAnswer.of(short), asked_line(route, "en"))
    assert message.startswith("<i>Ana asked: Where do I bring &lt;old&gt; paint?</i>\n\n")
    # in a private chat the presser reads "You asked", in the answer's language
    assert asked_line({"asked": "How?"}, "zh-hant") == "<i>您問：How?</i>"
    assert asked_line({}, "en") == ""  # a question the user wrote: nothing restated
    # a group's presser is linked to their account; control characters are spaces
    odd = {"asked": "Bins\x01?", "asker": "Ana\x00\x01", "asker_id": 7, "group": True}
    assert asked_line(odd, "en") == '<i><a href="tg://user?id=7">Ana</a> asked: Bins ?</i>'
    # a name of joiners and emoji parts is kept whole
    family = {"asked": "Q?", "asker": "می\u200cخواهم 👨\u200d👩", "group": True}
    assert "می\u200cخواهم 👨\u200d👩 asked" in asked_line(family, "en")
    # a long FAQ question is cut, so the line always fits a message
    long_line = asked_line({"asked": "Why " * 2000}, "en")
    assert len(html.unescape(long_line)) < 350 and long_line.endswith("…</i>")
    # an answer filling a message leaves room for the line in its first piece
    cited = [{"n": 1, "document": "depot.md", "title": "Depot " * 20}]
    full = TurnResult("Take it to the depot. " * 175, "en", None, cited, [], [], 1, 0, "t", {})
    [whole] = answer_messages(FinalAnswer.of(full))
    head = asked_line({**route, "asked": "Where do I bring paint, oil and batteries? " * 3}, "en")
    pieces = answer_messages(FinalAnswer.of(full), head)
    assert pieces[0].startswith(head + "\n\n") and len(pieces) == 2
    assert all(len(html.unescape(re.sub(r"<[^>]+>", "", p))) <= 4096 for p in pieces)
    assert len(html.unescape(re.sub(r"<[^>]+>", "", whole))) + len(head) > 4096  # it was full


def test_a_reply_to_a_pressed_question_is_headed_too() -> None:
    line = asked_line({"asked": "Where do I bring paint?"}, "en")
    # an error or a fixed reply (no answer) to the press says what was asked as well
    [reply] = headed(html_messages("Sorry, something went wrong. Please try again."), line)
    assert reply == f"{line}\n\nSorry, something went wrong. Please try again."
    assert headed(["a reply"], "") == ["a reply"]  # a question the user wrote
    full = html_messages("Take it to the depot. " * 181)
    long_line = asked_line({"asked": "Where do I bring old paint and oil? " * 5}, "en")
    assert headed(full, long_line) == [long_line, *full]  # no room left: before it
