"""Corrections: askers hear when an answer they got has changed because its document did.

Against the embedded Postgres and the fake Telegram and Slack servers: turns are
answered and stored by the turn service as the adapters' turns are (platform,
conversation, asker, the collections they read); a document's new version or removal
defers the corrections job in its own transaction; the job queue runs it and the
outbox delivers what it sends.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import text

from bot.app.case_renderers import asker_renderers
from bot.core.answering.corrections import MODEL_SILENT, Corrections
from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.events import FinalAnswer
from storage.db import Database
from storage.embeddings import Embedder
from storage.forms import FormFinder
from storage.ingestion import IngestionService, IngestOptions
from storage.repositories import corrections as corrections_repo
from storage.search import HybridSearcher
from tests.handoff.harness import Both, handoff_settings, start_both, stop_both
from tests.slack.test_slack import fake_slack
from tests.support.core_fixtures import jobs_running, until_settled
from tests.support.fake_slack import FakeSlack
from tests.support.fake_telegram import FakeTelegram
from tests.telegram.test_telegram import docs, fake_tg

__all__ = ["docs", "fake_slack", "fake_tg"]  # fixtures used here

CITIZEN = 7001
SETTINGS: dict[int, Any] = {}  # each harness's settings, by its id
FEE_QUESTION = "How much does an adult passport renewal cost?"
PASSPORT = (
    "# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
    "## Fees\n\nAn adult passport renewal costs {fee} dollars and takes four working days.\n"
)
REWORDED = (
    "# Passport renewal\n\nAdults renew their passports at the City Service Centre.\n\n"
    "## Fees\n\nRenewing an adult passport costs 1,300 dollars; it takes four working days.\n"
)


@pytest.fixture
async def both(
    docs: None, database_url: str, embedder: Embedder, fake_slack: FakeSlack, fake_tg: FakeTelegram
) -> AsyncIterator[Both]:
    settings = handoff_settings(fake_slack, fake_tg)
    h = await start_both(database_url, embedder, settings)
    SETTINGS[id(h)] = settings
    yield h
    SETTINGS.pop(id(h), None)
    await stop_both(h)


def answer_service(db: Database, embedder: Embedder) -> AnswerService:
    """The turn service as a worker builds it (no LLM: extractive answers)."""
    context = GraphContext(
        searcher=HybridSearcher(db, embedder),
        forms=FormFinder(db),
        embedder=embedder.model,
        screen_embedder=embedder.model,
    )
    return AnswerService(db, context)


def corrections_for(both: Both, answers: AnswerService, **settings: Any) -> Corrections:
    """The corrections the runtime's job queue carries, on this worker's database."""
    config = SETTINGS[id(both)].model_copy(update=settings)
    outbox = both.worker.core.outbox
    return Corrections(both.worker.db, config, lambda: answers, asker_renderers(), outbox.wake)


async def ask(
    answers: AnswerService,
    platform: str,
    conversation: str,
    user: str,
    collections: tuple[str, ...],
    language: str = "en",
) -> str:
    """A turn as the adapters run it; its answer (it must cite the passport document)."""
    result = None
    async for event in answers.stream(
        FEE_QUESTION,
        conversation=conversation,
        user=user,
        platform=platform,
        collections=collections,
        language=language,
    ):
        result = getattr(event, "result", result)
    assert result is not None and any(c["document"] == "passport" for c in result.citations)
    return result.answer


async def change_document(
    both: Both,
    db: Database,
    embedder: Embedder,
    body: str,
    collection: str = "public",
    delivered: bool = True,
) -> None:
    """A new version of the passport document; its corrections job run to the end (and
    the outbox emptied, unless `delivered` is false: a web mailbox's rows wait here)."""
    ingestion = IngestionService(db, embedder, IngestOptions())
    before = await settled_count(db)
    result = await ingestion.ingest_bytes("passport.md", body.encode(), collection=collection)
    assert result.status == "replaced", result
    await run_jobs(both, db, before, delivered)


async def fee_changed(db: Database, embedder: Embedder) -> dict[str, Any]:
    """The passport fee changed (a new version ingested); the corrections job's arguments
    it queued, for a test to run that job itself."""
    ingestion = IngestionService(db, embedder, IngestOptions())
    await ingestion.ingest_bytes("passport.md", PASSPORT.format(fee="1,500").encode())
    async with db.sessions() as session:
        args = await session.scalar(
            text("SELECT args FROM procrastinate_jobs WHERE task_name = 'correct_answers'")
        )
    assert args is not None
    return dict(args)


async def settled_count(db: Database) -> int:
    async with db.sessions() as session:
        return int(await session.scalar(text("SELECT count(*) FROM answer_corrections")) or 0)


async def run_jobs(both: Both, db: Database, before: int, delivered: bool = True) -> None:
    """Run the queue until no corrections job waits or runs, and the outbox is empty
    (when `delivered`)."""

    async def waiting() -> int:
        async with db.sessions() as session:
            return int(
                await session.scalar(
                    text(
                        "SELECT count(*) FROM procrastinate_jobs"
                        " WHERE task_name = 'correct_answers' AND status IN ('todo', 'doing')"
                    )
                )
                or 0
            )

    async with jobs_running(both.worker):
        for _ in range(600):
            if not await waiting():
                break
            await _sleep()
        assert not await waiting()
    if delivered:
        await until_settled(db)


async def _sleep() -> None:
    import asyncio

    await asyncio.sleep(0.05)


def corrections_sent(fake: FakeTelegram, chat: int) -> list[str]:
    texts = [str(p.get("text", "")) for p in fake.of("sendMessage", chat, delivered=True)]
    return [t for t in texts if "has changed" in t or "已有更新" in t]


async def statuses(db: Database) -> list[tuple[str, str]]:
    async with db.sessions() as session:
        rows = await session.execute(
            text("SELECT platform, status FROM answer_corrections ORDER BY id")
        )
        return [(str(r[0]), str(r[1])) for r in rows]


async def test_a_changed_fee_is_told_once_a_reworded_page_not_at_all(
    both: Both, db: Database, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    answers = answer_service(db, embedder)
    both.worker.jobs.corrections = corrections_for(both, answers)
    old = await ask(answers, "telegram", str(CITIZEN), str(CITIZEN), ("public",))
    assert "1,300" in old

    # reworded, same facts: re-asked, unchanged, nobody told
    await change_document(both, db, embedder, REWORDED)
    assert await statuses(db) == [("telegram", "unchanged")]
    assert corrections_sent(fake_tg, CITIZEN) == []

    # the fee changed: exactly one message, with the new fee and its source
    await change_document(both, db, embedder, PASSPORT.format(fee="1,500"))
    sent = corrections_sent(fake_tg, CITIZEN)
    assert len(sent) == 1
    assert "An answer I gave you on" in sent[0] and "1,500" in sent[0]
    assert "Source: passport" in sent[0]

    # a second change the same day: nothing more
    await change_document(both, db, embedder, PASSPORT.format(fee="1,700"))
    assert len(corrections_sent(fake_tg, CITIZEN)) == 1
    assert (await statuses(db))[-1] == ("telegram", "limited")


async def test_told_in_the_language_the_turn_recorded(
    both: Both, db: Database, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    answers = answer_service(db, embedder)
    both.worker.jobs.corrections = corrections_for(both, answers)
    await ask(answers, "telegram", str(CITIZEN), str(CITIZEN), ("public",), language="zh-hant")
    await change_document(both, db, embedder, PASSPORT.format(fee="1,500"))
    sent = corrections_sent(fake_tg, CITIZEN)
    assert len(sent) == 1 and sent[0].startswith("我在") and "已有更新" in sent[0]


async def test_a_slack_guest_who_cannot_read_the_new_version_hears_nothing(
    both: Both, db: Database, embedder: Embedder, fake_slack: FakeSlack
) -> None:
    answers = answer_service(db, embedder)
    both.worker.jobs.corrections = corrections_for(both, answers)
    # a guest (reads `public`) and a member (reads `internal` too) asked in their threads
    await ask(answers, "slack", "CGUEST:1700000000.000100", "UGUEST", ("public",))
    await ask(answers, "slack", "CMEMBER:1700000000.000200", "UMEMBER", ("internal", "public"))
    # the new version, with a new fee, is internal now
    await change_document(both, db, embedder, PASSPORT.format(fee="1,500"), "internal")
    posts = [p for m, p in fake_slack.calls if m == "chat.postMessage"]
    told = [p for p in posts if "has changed" in str(p.get("text", ""))]
    assert [p["channel"] for p in told] == ["CMEMBER"]
    assert told[0]["thread_ts"] == "1700000000.000200" and "1,500" in told[0]["text"]
    assert sorted(await statuses(db)) == [("slack", "sent"), ("slack", "unreadable")]


async def test_turned_off_nothing_is_sent(
    both: Both, db: Database, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    answers = answer_service(db, embedder)
    both.worker.jobs.corrections = corrections_for(both, answers, corrections_enabled=False)
    await ask(answers, "telegram", str(CITIZEN), str(CITIZEN), ("public",))
    await change_document(both, db, embedder, PASSPORT.format(fee="1,500"))
    assert corrections_sent(fake_tg, CITIZEN) == []
    assert await statuses(db) == []


async def test_a_deleted_conversation_hears_nothing(
    both: Both, db: Database, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    answers = answer_service(db, embedder)
    both.worker.jobs.corrections = corrections_for(both, answers)
    await ask(answers, "telegram", str(CITIZEN), str(CITIZEN), ("public",))
    await ask(answers, "telegram", "7002", "7002", ("public",))
    async with db.transaction() as session:
        deleting = text("DELETE FROM conversations WHERE external_id = :k")
        await session.execute(deleting, {"k": "7002"})
    await change_document(both, db, embedder, PASSPORT.format(fee="1,500"))
    assert corrections_sent(fake_tg, 7002) == []
    assert len(corrections_sent(fake_tg, CITIZEN)) == 1


async def test_a_removed_document_is_a_refusal_now(
    both: Both, db: Database, embedder: Embedder, fake_tg: FakeTelegram
) -> None:
    answers = answer_service(db, embedder)
    both.worker.jobs.corrections = corrections_for(both, answers)
    await ask(answers, "telegram", str(CITIZEN), str(CITIZEN), ("public",))
    before = await settled_count(db)
    assert await IngestionService(db, embedder, IngestOptions()).delete("passport")
    await run_jobs(both, db, before)
    sent = corrections_sent(fake_tg, CITIZEN)
    assert len(sent) == 1
    async with db.sessions() as session:
        reason = await session.scalar(text("SELECT reason FROM answer_corrections"))
    assert reason == "refusal", json.dumps(await statuses(db))


async def test_every_web_visitor_is_told_not_one_a_day_for_the_whole_site(
    both: Both, db: Database, embedder: Embedder
) -> None:
    """A website's visitors all call with its one API key (the key's name is every
    turn's user): each conversation is a visitor, and each one is told."""
    answers = answer_service(db, embedder)
    both.worker.jobs.corrections = corrections_for(both, answers)
    await ask(answers, "api", "1/visitor-a", "webchat", ("public",))
    await ask(answers, "api", "1/visitor-b", "webchat", ("public",))
    await change_document(both, db, embedder, PASSPORT.format(fee="1,500"), delivered=False)
    assert await statuses(db) == [("api", "sent"), ("api", "sent")]
    async with db.sessions() as session:
        chats = await session.scalars(
            text("SELECT chat FROM outbox WHERE key LIKE 'correction:%' ORDER BY id")
        )
        assert list(chats) == ["1/visitor-a", "1/visitor-b"]


async def test_a_much_cited_document_re_asks_only_the_newest_answers(
    both: Both,
    db: Database,
    embedder: Embedder,
    fake_tg: FakeTelegram,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each re-ask is a turn of the model: one change re-asks at most MAX_REASKS answers,
    the newest, however many cited the document (asking it a thousand times does not make
    one change cost a thousand turns)."""
    monkeypatch.setattr(corrections_repo, "MAX_REASKS", 2)
    answers = answer_service(db, embedder)
    both.worker.jobs.corrections = corrections_for(both, answers)
    for chat in (7001, 7002, 7003):
        await ask(answers, "telegram", str(chat), str(chat), ("public",))
    await change_document(both, db, embedder, PASSPORT.format(fee="1,500"))
    assert await statuses(db) == [("telegram", "sent"), ("telegram", "sent")]
    assert corrections_sent(fake_tg, 7001) == []
    assert len(corrections_sent(fake_tg, 7002)) == len(corrections_sent(fake_tg, 7003)) == 1


async def test_a_re_ask_that_failed_is_asked_again_by_the_jobs_retry(
    both: Both, db: Database, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model down while a change's answers are re-asked: the job fails (the queue
    retries it) and `stats` counts the failure; its retry asks again and tells the asker
    (a failed re-ask is not settled for good)."""
    answers = answer_service(db, embedder)
    corrections = corrections_for(both, answers)
    await ask(answers, "telegram", str(CITIZEN), str(CITIZEN), ("public",))
    args = await fee_changed(db, embedder)

    async def model_down(*_: Any, **__: Any) -> None:
        raise RuntimeError("the model did not answer")

    with monkeypatch.context() as patched:
        patched.setattr(corrections, "reask", model_down)
        with pytest.raises(Exception, match="1 re-asks for 'passport' failed"):
            await corrections.run(args)
    assert await statuses(db) == [("telegram", "failed")]
    async with db.sessions() as session:
        since = await session.scalar(text("SELECT now() - interval '1 day'"))
        summary = await corrections_repo.summary(session, since, None)
    assert summary == {"reasked": 0, "sent": 0, "unchanged": 0, "failed": 1}

    assert await corrections.run(args) == {"sent": 1}  # the retry
    assert await statuses(db) == [("telegram", "sent")]


async def test_a_re_ask_the_model_gave_no_reply_to_tells_nobody_and_is_retried(
    both: Both, db: Database, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model down or timed out: the fallback quotes other sentences than the model
    wrote, which must not reach everyone as a changed answer; the re-ask fails instead
    (the job's retry asks again) and nobody is told."""
    answers = answer_service(db, embedder)
    corrections = corrections_for(both, answers)
    await ask(answers, "telegram", str(CITIZEN), str(CITIZEN), ("public",))
    args = await fee_changed(db, embedder)
    stream = answers.stream

    async def silent_model(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async for event in stream(*args, **kwargs):
            if isinstance(event, FinalAnswer):
                path = [*event.result.decision_path, MODEL_SILENT]
                event = replace(event, result=replace(event.result, decision_path=path))
            yield event

    with monkeypatch.context() as patched:
        patched.setattr(answers, "stream", silent_model)
        with pytest.raises(Exception, match="1 re-asks for 'passport' failed"):
            await corrections.run(args)
    assert await statuses(db) == [("telegram", "failed")]
