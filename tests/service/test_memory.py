"""Answer memory against the real Postgres and the fake OpenAI server: repeats answered at once."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator

import pytest

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.events import FinalAnswer, Token
from graph.models import build_chat_model
from storage.db import Database
from storage.embeddings import Embedder
from storage.forms import FormFinder
from storage.ingestion import IngestionService
from storage.memory import AnswerMemory, question_key
from storage.search import HybridSearcher
from tests.support.core_fixtures import close_worker, make_worker, settings_for_tests
from tests.support.fake_openai import FakeOpenAI, Reply, first_source_sentence
from textkit.catalog import say

PASSPORT = (
    "# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
    "## Fees\n\nAn adult passport renewal costs 1,300 dollars and takes four working days.\n"
)
PARKING = (
    "# 住宅區停車許可證\n\n設籍本市的居民可以申請住宅區停車許可證，每戶最多兩張。\n\n"
    "## 費用\n\n每張許可證每年收費新臺幣一千二百元。\n"
)
ASKED = "How much does an adult passport renewal cost?"


def faithful_model(body: dict) -> Reply:  # type: ignore[type-arg]
    """Plans the question as asked and answers with source [1]'s first sentence."""
    system = str(body["messages"][0]["content"])
    question = str(body["messages"][-1]["content"])
    if system.startswith("You are the planning step"):
        plan = {"task_type": "simple_faq", "should_retrieve": True, "query": question}
        return Reply(json.dumps({**plan, "alternates": []}, ensure_ascii=False))
    answer = f"{first_source_sentence(body)} [1]"
    return Reply(json.dumps({"answerable": True, "answer": answer, "citations": [1]}))


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI(responder=faithful_model).start()
    yield server
    server.stop()


@pytest.fixture
async def loaded(ingestion: IngestionService) -> None:
    for name, body in (("passport.md", PASSPORT), ("停車許可證.md", PARKING)):
        assert (await ingestion.ingest_bytes(name, body.encode())).status == "added"


def service_with(
    db: Database, searcher: HybridSearcher, embedder: Embedder, fake: FakeOpenAI | None
) -> AnswerService:
    llm = build_chat_model(fake.url, "k", "fake", timeout=2.0) if fake else None
    context = GraphContext(
        searcher=searcher, forms=FormFinder(db), llm=llm, llm_timeout=2.0, embedder=embedder.model
    )
    return AnswerService(db, context, memory=AnswerMemory(db, embedder))


@pytest.fixture
def service(
    db: Database, searcher: HybridSearcher, embedder: Embedder, fake: FakeOpenAI, loaded: None
) -> AnswerService:
    return service_with(db, searcher, embedder, fake)


async def entries(db: Database, embedder: Embedder) -> list[dict]:  # type: ignore[type-arg]
    return await AnswerMemory(db, embedder).entries()


async def test_a_repeat_in_a_new_conversation_is_answered_from_memory_without_the_llm(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    first = await service.ask(ASKED, conversation="alice")
    assert first.llm_calls == 2 and first.outcome == "answered"
    fake.requests.clear()
    events = [e async for e in service.stream(ASKED.upper(), conversation="bob")]
    final = events[-1]
    assert isinstance(final, FinalAnswer)
    again = final.result
    assert again.llm_calls == 0 and fake.requests == []
    assert "memory:hit" in again.decision_path and again.outcome == "memory"
    assert again.answer == first.answer and again.citations == first.citations
    # the answer arrives whole, at once
    assert [e.text for e in events if isinstance(e, Token)] == [first.answer]
    # stored as a normal turn: the next message in Bob's conversation has its history
    fake.requests.clear()
    follow = await service.ask("and how long does it take?", conversation="bob")
    planner_saw = json.dumps(fake.requests[0]["messages"], ensure_ascii=False)
    assert ASKED.upper() in planner_saw and first.answer in planner_saw
    assert follow.citations and follow.citations[0]["document"] == "passport"


async def test_the_other_script_hits_and_is_answered_in_the_askers_script(
    db: Database, searcher: HybridSearcher, embedder: Embedder, loaded: None
) -> None:
    plain = service_with(db, searcher, embedder, None)  # no-LLM mode remembers too
    first = await plain.ask("停車許可證每年收費多少？", conversation="a")
    assert first.outcome == "answered" and "一千二百元" in first.answer
    again = await plain.ask("停车许可证每年收费多少？", conversation="b")
    assert again.outcome == "memory" and again.language == "zh-hans"
    assert "一千二百元" in again.answer and "許可證" not in again.answer  # Simplified
    # the same sources, their titles in the asker's script
    assert [c["title"] for c in first.citations] == ["停車許可證"]
    assert [c["title"] for c in again.citations] == ["停车许可证"]
    assert [{**c, "title": None} for c in again.citations] == [
        {**c, "title": None} for c in first.citations
    ]


async def test_different_questions_sharing_words_do_not_hit(
    service: AnswerService, db: Database, embedder: Embedder
) -> None:
    await service.ask(ASKED, conversation="a")
    other = await service.ask("Where does an adult passport renewal take place?", conversation="b")
    assert other.outcome != "memory" and other.llm_calls == 2
    assert question_key(ASKED) != question_key("How much did an adult passport renewal cost?")


async def test_a_replaced_document_is_not_served_and_a_fresh_answer_is_remembered(
    service: AnswerService, ingestion: IngestionService, db: Database, embedder: Embedder
) -> None:
    await service.ask(ASKED, conversation="a")
    changed = PASSPORT.replace("1,300", "1,500")
    assert (await ingestion.ingest_bytes("passport.md", changed.encode())).status == "replaced"
    fresh = await service.ask(ASKED, conversation="b")
    assert fresh.outcome == "answered" and "1,500" in fresh.answer
    remembered = await entries(db, embedder)
    assert len(remembered) == 1 and remembered[0]["valid"]
    again = await service.ask(ASKED, conversation="c")
    assert again.outcome == "memory" and "1,500" in again.answer
    assert await ingestion.delete("passport")
    gone = await service.ask(ASKED, conversation="d")
    assert gone.outcome != "memory" and await entries(db, embedder) == []


async def test_votes_count_people_and_unhelpful_votes_hide_then_remove_an_answer(
    database_url: str, embedder: Embedder, ingestion: IngestionService, fake: FakeOpenAI
) -> None:
    worker = await make_worker(
        database_url, embedder, settings_for_tests(), open_jobs=False, memory=True
    )
    try:
        await ingestion.ingest_bytes("passport.md", PASSPORT.encode())
        answers = worker.core._answers  # the core's own service, as adapters reach it
        core = worker.core
        first = await answers.ask(ASKED, conversation="a", user="U1", platform="slack")
        served = await answers.ask(ASKED, conversation="b", user="U2", platform="slack")
        assert served.outcome == "memory" and served.message_id is not None
        for _ in range(5):  # a repeated click is one person's one vote
            assert await core.feedback("slack", "U2", served.message_id, True, where="b")
        listed = await AnswerMemory(worker.db, embedder).entries()
        assert listed[0]["helpful"] == 1 and listed[0]["hits"] == 1
        assert first.message_id is not None
        # the asker says no: never served to them again, still to others (1 helpful, 1 not)
        assert await core.feedback("slack", "U1", first.message_id, False, where="a")
        mine = await answers.ask(ASKED, conversation="c", user="U1", platform="slack")
        theirs = await answers.ask(ASKED, conversation="d", user="U4", platform="slack")
        assert mine.outcome != "memory" and theirs.outcome == "memory"
        again = await answers.ask(ASKED, conversation="c2", user="U1", platform="slack")
        assert again.outcome != "memory"  # U1's fresh answer has the same text: still no
        # a second person's unhelpful vote outweighs the one helpful vote: gone for everyone
        assert theirs.message_id is not None
        assert await core.feedback("slack", "U4", theirs.message_id, False, where="d")
        after = await answers.ask(ASKED, conversation="e", user="U5", platform="slack")
        assert after.outcome != "memory"
    finally:
        await close_worker(worker)


async def test_personal_data_and_follow_ups_and_refusals_are_not_remembered(
    service: AnswerService, db: Database, embedder: Embedder
) -> None:
    await service.ask(f"{ASKED} My e-mail is jane@example.org", conversation="a")
    await service.ask("Who won the 1998 world cup final in Paris?", conversation="b")
    await service.ask("How do I renew a passport?", conversation="c")
    await service.ask("and what does it cost?", conversation="c")
    questions = [e["question"] for e in await entries(db, embedder)]
    assert questions == ["How do I renew a passport?"]
    assert not any("[EMAIL]" in q or "example.org" in q for q in questions)


async def test_a_bare_place_is_never_looked_up(service: AnswerService, fake: FakeOpenAI) -> None:
    # "2" picking nothing names no question: even an answer an older version remembered
    # for a bare "2" must not be served for it; it is asked to be written out
    fake.requests.clear()
    result = await service.ask("2", conversation="d")
    assert "memory:place" in result.decision_path and "memory:miss" not in result.decision_path
    assert result.answer == say("no_offer", "en") and fake.requests == []


async def test_concurrent_identical_questions_make_one_entry(
    service: AnswerService, db: Database, embedder: Embedder
) -> None:
    results = await asyncio.gather(*(service.ask(ASKED, conversation=f"c{i}") for i in range(3)))
    assert all(r.outcome in ("answered", "memory") for r in results)
    assert len(await entries(db, embedder)) == 1


async def test_entries_are_served_only_to_askers_who_may_read_their_documents(
    service: AnswerService, ingestion: IngestionService
) -> None:
    secret = "# Staff bonus\n\nThe staff bonus is paid every March in full.\n"
    await ingestion.ingest_bytes("bonus.md", secret.encode(), collection="staff")
    staff = await service.ask("When is the staff bonus paid?", collections=["staff", "public"])
    assert staff.outcome == "answered"
    public = await service.ask("When is the staff bonus paid?", collections=["public"])
    assert public.outcome != "memory" and not public.citations


async def test_a_broken_memory_costs_the_shortcut_not_the_answer(
    service: AnswerService, db: Database
) -> None:
    from sqlalchemy import text

    async with db.transaction() as session:
        await session.execute(text("ALTER TABLE answer_memory RENAME TO answer_memory_away"))
    try:
        result = await service.ask(ASKED, conversation="a")
        assert result.outcome == "answered" and "memory:error" in result.decision_path
        assert result.message_id is not None  # the turn itself was stored
    finally:
        async with db.transaction() as session:
            await session.execute(text("ALTER TABLE answer_memory_away RENAME TO answer_memory"))


async def test_a_changed_form_is_not_served_from_memory(
    db: Database, searcher: HybridSearcher, embedder: Embedder, loaded: None
) -> None:
    from storage.forms import FormService

    forms = FormService(db, 10_000)
    name = "Passport application form PS-11"
    await forms.add(name, "https://forms.example.org/ps-11", aliases=["passport form"])
    plain = service_with(db, searcher, embedder, None)
    asked = "Where can I download the passport form?"
    first = await plain.ask(asked, conversation="a")
    assert first.outcome == "forms" and "forms.example.org/ps-11" in first.answer
    assert (await plain.ask(asked, conversation="b")).outcome == "memory"
    await forms.add(name, "https://forms.example.org/ps-11-2027", aliases=["passport form"])
    fresh = await plain.ask(asked, conversation="c")
    assert fresh.outcome == "forms" and "ps-11-2027" in fresh.answer


async def test_retention_purges_remembered_answers_past_retention_days(
    service: AnswerService, db: Database, embedder: Embedder
) -> None:
    from sqlalchemy import text

    from bot.core.admin.retention import purge_expired

    await service.ask(ASKED, conversation="old")
    await service.ask("停車許可證一年多少錢？", conversation="new")
    assert len(await entries(db, embedder)) == 2
    async with db.transaction() as session:  # the passport answer was stored 200 days ago
        await session.execute(
            text(
                "UPDATE answer_memory SET created_at = now() - interval '200 days',"
                " confirmed_at = now() - interval '200 days' WHERE question LIKE 'How much%'"
            )
        )
    deleted = await purge_expired(db, 180)
    assert deleted["answer_memory"] == 1
    kept = await entries(db, embedder)
    assert len(kept) == 1 and kept[0]["question"].startswith("停車許可證")
    again = await service.ask(ASKED, conversation="later")
    assert again.outcome != "memory"


async def test_a_document_replaced_while_the_turn_waits_on_the_model_is_not_remembered(
    db: Database,
    searcher: HybridSearcher,
    embedder: Embedder,
    ingestion: IngestionService,
    fake: FakeOpenAI,
    loaded: None,
) -> None:
    """The fee is corrected while the answer is being written from the old text: the
    old answer is given this once, but never served again from memory."""
    writing, corrected = threading.Event(), threading.Event()

    def slow_writer(body: dict) -> Reply:  # type: ignore[type-arg]
        if not str(body["messages"][0]["content"]).startswith("You are the planning step"):
            writing.set()  # retrieval is done: the turn holds the 1,300 text
            corrected.wait(30)
        return faithful_model(body)

    fake.responder = slow_writer
    llm = build_chat_model(fake.url, "k", "fake", timeout=30.0)
    context = GraphContext(
        searcher=searcher, forms=FormFinder(db), llm=llm, llm_timeout=30.0, embedder=embedder.model
    )
    service = AnswerService(db, context, memory=AnswerMemory(db, embedder))
    turn = asyncio.ensure_future(service.ask(ASKED, conversation="a"))
    assert await asyncio.to_thread(writing.wait, 30)
    changed = PASSPORT.replace("1,300", "1,500")
    assert (await ingestion.ingest_bytes("passport.md", changed.encode())).status == "replaced"
    corrected.set()
    first = await turn
    assert first.outcome == "answered" and "1,300" in first.answer  # read before the change
    fake.responder = faithful_model
    again = await service.ask(ASKED, conversation="b")
    assert again.outcome != "memory" and "1,500" in again.answer and "1,300" not in again.answer
    assert (await service.ask(ASKED, conversation="c")).outcome == "memory"  # the new one is


async def test_a_form_moved_to_an_internal_collection_is_not_offered_from_memory(
    db: Database, searcher: HybridSearcher, embedder: Embedder, loaded: None
) -> None:
    from storage.forms import FormService

    forms = FormService(db, 10_000)
    name = "Passport application form PS-11"
    url = "https://forms.example.org/ps-11"
    await forms.add(name, url, aliases=["passport form"], collection="public")
    plain = service_with(db, searcher, embedder, None)
    asked = "Where can I download the passport form?"
    public = ["public"]
    first = await plain.ask(asked, conversation="a", collections=public)
    assert first.outcome == "forms" and url in first.answer
    assert (await plain.ask(asked, conversation="b", collections=public)).outcome == "memory"
    # staff only from now on: the link and file are unchanged, the collection is not
    await forms.add(name, url, aliases=["passport form"], collection="internal")
    citizen = await plain.ask(asked, conversation="c", collections=public)
    assert citizen.outcome != "memory" and url not in citizen.answer
    assert not any(f.get("name") == name for f in citizen.forms)
    staff = await plain.ask(asked, conversation="d", collections=["internal", "public"])
    assert url in staff.answer


async def test_a_document_moved_to_another_collection_is_not_served_from_memory(
    service: AnswerService, ingestion: IngestionService
) -> None:
    """The same text removed and added again elsewhere is another version: not served."""
    first = await service.ask(ASKED, conversation="a")
    assert (await service.ask(ASKED, conversation="b")).outcome == "memory"
    assert await ingestion.delete("passport")
    moved = await ingestion.ingest_bytes("passport.md", PASSPORT.encode(), collection="internal")
    assert moved.status == "added"
    again = await service.ask(ASKED, conversation="c")
    assert again.outcome != "memory" and again.answer == first.answer
    assert (await service.ask(ASKED, conversation="d")).outcome == "memory"  # the new one is


async def test_a_document_replaced_between_the_lookups_steps_is_not_served(
    service: AnswerService,
    ingestion: IngestionService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Valid when the candidates are listed, replaced before the answer is read: a miss."""
    from storage.repositories import memory as memory_repo

    await service.ask(ASKED, conversation="a")
    listed = memory_repo.candidates

    async def then_replaced(*args: object, **kwargs: object) -> list[tuple[int, bool]]:
        found = await listed(*args, **kwargs)  # type: ignore[arg-type]
        changed = PASSPORT.replace("1,300", "1,500")
        assert (await ingestion.ingest_bytes("passport.md", changed.encode())).status == "replaced"
        return found

    monkeypatch.setattr(memory_repo, "candidates", then_replaced)
    again = await service.ask(ASKED, conversation="b")
    assert again.outcome != "memory" and "1,500" in again.answer


async def test_a_synced_file_changed_on_disk_is_not_served_from_memory(
    db: Database,
    searcher: HybridSearcher,
    embedder: Embedder,
    ingestion: IngestionService,
    fake: FakeOpenAI,
    tmp_path: object,
) -> None:
    """Ask, the source's file changes, the source syncs, ask again: the new text answers."""
    from pathlib import Path

    from bot.core.admin.audit import Actor, AuditLog
    from bot.core.admin.sources import Sources
    from storage.sources.sync import SourceSyncer
    from storage.sources.web import WebLimits

    operator = Actor("cli", "operator", is_admin=True)
    folder = Path(str(tmp_path)) / "kb"
    folder.mkdir()
    (folder / "passport.md").write_text(PASSPORT)
    sources = Sources(db, AuditLog(db), SourceSyncer(db, ingestion, WebLimits()))
    await sources.add(operator, "folder", str(folder), name="kb", collection="public", every_s=3600)
    assert [r.status for _, r in await sources.sync(operator, "kb")] == ["ok"]
    service = service_with(db, searcher, embedder, fake)
    first = await service.ask(ASKED, conversation="a")
    assert first.outcome == "answered" and "1,300" in first.answer
    assert (await service.ask(ASKED, conversation="b")).outcome == "memory"
    (folder / "passport.md").write_text(PASSPORT.replace("1,300", "1,500") + "\n")
    [(_, report)] = await sources.sync(operator, "kb")
    assert len(report.changed) == 1
    again = await service.ask(ASKED, conversation="c")
    assert again.outcome != "memory" and "1,500" in again.answer and "1,300" not in again.answer
