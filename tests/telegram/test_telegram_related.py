"""A refusal's FAQ questions on Telegram: buttons under the refusal that ask them, on the
real PTB app and serving core against the fake Bot API."""

from __future__ import annotations

from typing import Any

import pytest

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


@pytest.mark.usefixtures("rubbish")
async def test_a_refusals_faq_questions_are_buttons_that_ask_them(
    database_url: str, embedder: Embedder, fake_tg: FakeTelegram, db: Database
) -> None:
    h = await start_harness(database_url, embedder, fake_tg)
    try:
        await h.post(private_text(9801, 1801, COUCH))
        refusal = await _refusal(fake_tg, 1801)
        offered = {b["text"]: b for b in keyboard(refusal) if b["callback_data"].startswith("rq:")}
        assert f"❓ {SOFA}" in offered
        # listed once: as buttons, the text keeps only the list's intro, last
        assert SOFA not in refusal["text"]
        assert refusal["text"].rstrip().endswith("Ask one of them to get its answer:")
        shown = _shown(fake_tg, refusal)
        data = offered[f"❓ {SOFA}"]["callback_data"]
        await h.post(callback(9802, 1801, data, shown))
        await until(lambda: bool(_with(fake_tg, 1801, "20 euros")), timeout=30)
        [answer] = _with(fake_tg, 1801, "20 euros")
        # answered under the refusal, the pressed button ticked
        assert answer["reply_parameters"]["message_id"] == shown["message_id"]
        [ticked] = fake_tg.of("editMessageReplyMarkup", 1801)
        assert f"❓ {SOFA} ✓" in [b["text"] for b in keyboard(ticked)]
        # the same press delivered again, a press by someone else in this private chat,
        # and data naming no button the message carries: nothing more is asked
        await h.post(callback(9802, 1801, data, shown))
        await h.post(callback(9803, 1899, data, shown))
        await h.post(callback(9804, 1801, "rq:7", shown))
        await until_settled(db)
        assert len(_with(fake_tg, 1801, "20 euros")) == 1
        assert len(fake_tg.of("answerCallbackQuery")) >= 3  # every spinner stopped
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
        [button] = [b for b in keyboard(refusal) if b["text"] == f"❓ {SOFA}"]
        shown = _shown(fake_tg, refusal)
        await h.post(callback(9812, 82, button["callback_data"], shown))  # another member
        await until(lambda: bool(_with(fake_tg, -100811, "20 euros")), timeout=30)
        [answer] = _with(fake_tg, -100811, "20 euros")
        assert answer["reply_parameters"]["message_id"] == shown["message_id"]
    finally:
        await stop_harness(h)
