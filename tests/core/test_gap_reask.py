"""Open questions asked again after an upload or a sync: the uploader is told how many
are answered now, and `gaps` no longer lists them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.core.admin import gap_reask
from bot.core.admin.audit import Actor
from bot.core.admin.commands import gaps_text
from bot.core.admin.gap_reask import NowAnswered
from bot.core.messages import UploadOutcome
from storage.db import Database
from storage.embeddings import Embedder
from storage.sources.report import result_text
from tests.support.core_fixtures import (
    Worker,
    close_worker,
    jobs_running,
    make_worker,
    not_due,
    settings_for_tests,
    until,
)

ASKED = "How much does a fishing permit cost?"
FISHING = (
    "# Fishing permits\n\nA fishing permit costs 45 dollars a year.\n\n"
    "Permits are sold at the harbour office.\n"
)
ADMIN = Actor("telegram", "42", is_admin=True)
OPERATOR = Actor("cli", "operator", is_admin=True)


async def upload_fishing(worker: Worker, collection: str = "public") -> UploadOutcome:
    """The admin uploads the fishing page into `collection`; the notice they are sent once
    the queue has ingested it (and asked the open questions again)."""
    body = FISHING.encode()
    await worker.core.knowledge.upload(ADMIN, "fishing.md", body, None, collection, "42", "en")
    async with jobs_running(worker):
        await until(lambda: bool(worker.outcomes), 60)
    [outcome] = worker.outcomes
    return outcome


async def offers(db: Database) -> list[tuple[str, object]]:
    """(chat, payload) of every new answer offered to an asker (in the outbox)."""
    async with db.sessions() as session:
        rows = await session.execute(
            text("SELECT chat, payload FROM outbox WHERE key LIKE 'correction:%'")
        )
        return [(str(chat), payload) for chat, payload in rows]


async def test_an_upload_that_answers_a_refused_question_says_so_and_closes_the_gap(
    database_url: str, embedder: Embedder, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    offered: list[NowAnswered] = []
    offer = gap_reask.GapReasker.offer_new_answers

    async def seen(self: gap_reask.GapReasker, answered: Sequence[NowAnswered]) -> None:
        offered.extend(answered)
        await offer(self, answered)

    monkeypatch.setattr(gap_reask.GapReasker, "offer_new_answers", seen)
    worker = await make_worker(database_url, embedder, settings_for_tests())
    try:
        answers = worker.core._answers  # the core's own service, as adapters reach it
        refused = await answers.ask(
            ASKED, conversation="901", user="U9", platform="telegram", collections=["public"]
        )
        assert refused.outcome == "refused"
        before = await worker.core.admin.reports.gaps(ADMIN)
        assert before["questions"] == 1
        outcome = await upload_fishing(worker)
        assert outcome.text.startswith("fishing.md was added as 'fishing'")
        assert outcome.text.endswith("1 of 1 open questions on this topic are now answered.")
        after = await worker.core.admin.reports.gaps(ADMIN)  # listed, marked answered now
        [topic] = after["topics"]
        assert topic["count"] == 1 and topic["answered_later"] == 1
        assert "1 now answered" in gaps_text(after)
        async with db.sessions() as session:
            row = (
                await session.execute(
                    text("SELECT trace_id, platform, conversation, answered FROM gap_reasks")
                )
            ).one()
        # the asker is offered the answer in the chat they asked in, once
        sent = await offers(db)
        assert tuple(row) == (refused.trace_id, "telegram", "901", True)
        [now] = offered
        assert now.refused_answer_id == refused.message_id and now.trace_id == refused.trace_id
        assert (now.platform, now.conversation, now.question) == ("telegram", "901", ASKED)
        assert now.new.outcome == "answered" and "45 dollars" in now.new.answer
        [(chat, payload)] = sent
        assert chat == "901" and "now have an answer" in str(payload)
        assert "45 dollars" in str(payload) and ASKED in str(payload)
    finally:
        await close_worker(worker)


async def test_an_upload_on_another_topic_leaves_the_gap_and_its_notice_alone(
    database_url: str, embedder: Embedder, db: Database
) -> None:
    worker = await make_worker(database_url, embedder, settings_for_tests())
    try:
        await worker.core._answers.ask(ASKED, conversation="c1", platform="telegram")
        body = b"# Library hours\n\nThe central library opens at nine every weekday.\n"
        await worker.core.knowledge.upload(ADMIN, "library.md", body, None, "public", "42", "en")
        async with jobs_running(worker):
            await until(lambda: bool(worker.outcomes), 60)
        [outcome] = worker.outcomes
        assert outcome.text == "library.md was added as 'library' (1 passages)."
        [topic] = (await worker.core.admin.reports.gaps(ADMIN))["topics"]
        assert topic["count"] == 1 and topic["answered_later"] == 0
    finally:
        await close_worker(worker)


async def test_a_sync_that_answers_a_refused_question_records_it_with_the_sync(
    database_url: str, embedder: Embedder, db: Database, tmp_path: Path
) -> None:
    worker = await make_worker(database_url, embedder, settings_for_tests())
    try:
        refused = await worker.core._answers.ask(ASKED, conversation="c2", platform="slack")
        assert refused.outcome == "refused"
        (tmp_path / "fishing.md").write_text(FISHING)
        sources = worker.jobs.sources
        assert sources is not None
        await sources.add(
            OPERATOR, "folder", str(tmp_path), name="kb", collection="public", every_s=3600
        )
        await not_due(db)  # synced here, not by the queue's minute job
        async with jobs_running(worker):
            await sources.sync(OPERATOR, "kb")
            deadline = asyncio.get_running_loop().time() + 60
            while "gaps" not in (await sources.list_sources(OPERATOR))[0]["last_result"]:
                assert asyncio.get_running_loop().time() < deadline, "no re-ask recorded"
                await asyncio.sleep(0.1)
        [row] = await sources.list_sources(OPERATOR)
        assert row["last_result"]["gaps"] == {"asked": 1, "answered": 1}
        assert result_text(row["last_result"]).endswith("; 1 of 1 open questions now answered")
        [topic] = (await worker.core.admin.reports.gaps(OPERATOR))["topics"]
        assert topic["answered_later"] == 1
    finally:
        await close_worker(worker)


async def test_a_question_asked_in_someone_elses_group_conversation_is_not_offered(
    database_url: str, embedder: Embedder, db: Database
) -> None:
    """In a group, a reply continues the conversation of whoever started it: a question
    another member asked there is answered, but no offer goes to the group for it (the
    owner did not ask it, and the offer would use up the owner's one message a day)."""
    worker = await make_worker(database_url, embedder, settings_for_tests())
    try:
        answers = worker.core._answers
        group = "-100500:77"  # a Telegram group's conversation, started by U1
        await answers.ask("Hello", conversation=group, user="U1", platform="telegram")
        refused = await answers.ask(
            ASKED, conversation=group, user="U2", platform="telegram", collections=["public"]
        )
        assert refused.outcome == "refused"
        outcome = await upload_fishing(worker)
        assert outcome.text.endswith("1 of 1 open questions on this topic are now answered.")
        assert await offers(db) == []
    finally:
        await close_worker(worker)


async def test_a_collection_the_platform_no_longer_reads_is_not_read_for_its_asker(
    database_url: str, embedder: Embedder, db: Database
) -> None:
    """A Telegram question refused while TELEGRAM_COLLECTIONS still held `internal`: an
    internal document added since does not answer it (Telegram reads `public` now), so
    nothing of it is offered in that chat."""
    worker = await make_worker(database_url, embedder, settings_for_tests(), corrections=True)
    try:
        answers = worker.core._answers
        refused = await answers.ask(
            ASKED,
            conversation="903",
            user="903",
            platform="telegram",
            collections=["public", "internal"],  # what Telegram read then
        )
        assert refused.outcome == "refused"
        outcome = await upload_fishing(worker, "internal")
        assert outcome.text == "fishing.md was added as 'fishing' (1 passages)."
        assert await offers(db) == []
    finally:
        await close_worker(worker)


async def test_no_offer_reaches_an_asker_when_corrections_are_turned_off(
    database_url: str, embedder: Embedder, db: Database
) -> None:
    """CORRECTIONS_ENABLED=false: the open question is still asked again and counted for
    the uploader, but its asker gets no message."""
    config = settings_for_tests().model_copy(update={"corrections_enabled": False})
    worker = await make_worker(database_url, embedder, config)
    try:
        refused = await worker.core._answers.ask(
            ASKED, conversation="902", user="U9", platform="telegram", collections=["public"]
        )
        assert refused.outcome == "refused"
        outcome = await upload_fishing(worker)
        assert outcome.text.endswith("1 of 1 open questions on this topic are now answered.")
        async with db.sessions() as session:
            sent = (await session.execute(text("SELECT 1 FROM outbox"))).all()
        assert sent == []
    finally:
        await close_worker(worker)
