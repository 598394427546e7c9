"""Langfuse traces through the real langfuse SDK, exporting to a local capture server.

The SDK exports OTLP/HTTP spans and score batches in the background; each test
flushes it and reads what the fake Langfuse received. The LLM is the fake
OpenAI server, which records the requests it got.
"""

from __future__ import annotations

import asyncio
import json
import logging
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy import text

from bot.core.admin.audit import Actor
from bot.core.admin.jobs import JobQueue
from bot.core.messages import FinalAnswer
from bot.settings import Settings
from bot.telemetry import Pseudonyms, Telemetry, load_pseudonyms
from bot.telemetry.tracer import EXPORT_TIMEOUT_S, SHUTDOWN_WAIT_S
from graph.models import build_chat_model
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService, IngestOptions
from tests.support.core_fixtures import (
    DOCS,
    Worker,
    close_worker,
    collect,
    make_worker,
    message,
    only,
    settings_for_tests,
)
from tests.support.fake_langfuse import FakeLangfuse, Span
from tests.support.fake_openai import FakeOpenAI, Reply

NODES = {
    "guard",
    "language_normalizer",
    "planner",
    "query_builder",
    "tool_executor",
    "retrieval_checker",
    "response_synth",
    "telemetry",
}
PLAN = Reply(json.dumps({"task_type": "simple_faq", "should_retrieve": True, "query": "passport"}))


@pytest.fixture
def langfuse() -> Iterator[FakeLangfuse]:
    server = FakeLangfuse().start()
    yield server
    server.stop()


@pytest.fixture
def openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


def connect(langfuse: FakeLangfuse) -> Telemetry:
    # a fresh public key per test: the SDK keeps one client per key for the process
    return Telemetry.connect(
        Pseudonyms("test-key"), f"pk-lf-{uuid.uuid4().hex}", "sk", langfuse.url
    )


async def traced_worker(
    database_url: str,
    db: Database,
    embedder: Embedder,
    telemetry: Telemetry | None,
    openai: FakeOpenAI | None = None,
) -> Worker:
    llm = None
    if openai is not None:
        llm = build_chat_model(openai.url, "key", "fake-model", timeout=5.0)
    worker = await make_worker(
        database_url, embedder, settings_for_tests(), llm=llm, telemetry=telemetry
    )
    ingestion = IngestionService(db, embedder, IngestOptions())
    for name, body in DOCS.items():
        await ingestion.ingest_bytes(name, body.encode())
    return worker


@pytest.fixture
async def traced(
    db: Database, database_url: str, embedder: Embedder, langfuse: FakeLangfuse, openai: FakeOpenAI
) -> AsyncIterator[tuple[Worker, Telemetry]]:
    telemetry = connect(langfuse)
    worker = await traced_worker(database_url, db, embedder, telemetry, openai)
    yield worker, telemetry
    await close_worker(worker)
    await asyncio.to_thread(telemetry.shutdown)


async def ask(worker: Worker, text_: str, **kwargs: str) -> FinalAnswer:
    events = await collect(worker.core.handle(message(text_, **kwargs)))
    return only(events, FinalAnswer)[0]


def by_name(spans: list[Span]) -> dict[str, list[Span]]:
    out: dict[str, list[Span]] = {}
    for span in spans:
        out.setdefault(span.name, []).append(span)
    return out


async def test_a_turn_is_one_trace_with_node_spans_generations_and_metadata(
    traced: tuple[Worker, Telemetry], langfuse: FakeLangfuse, openai: FakeOpenAI
) -> None:
    worker, telemetry = traced
    openai.script = [PLAN, Reply("An adult renewal costs 1,300 dollars [1].")]
    answer = await ask(
        worker, "How much is a passport renewal?", platform="telegram", user="777", conv="chat-9"
    )
    trace_id = answer.result.trace_id
    await asyncio.to_thread(telemetry.flush)
    spans = by_name(langfuse.trace(trace_id))

    root = spans["turn"][0]
    assert root.attributes["langfuse.observation.input"] == "How much is a passport renewal?"
    assert root.attributes["langfuse.observation.output"] == answer.text
    assert root.attributes["user.id"] == telemetry.pseudonyms.user("telegram", "777")
    assert "777" not in root.attributes["user.id"]
    assert root.attributes["session.id"] == telemetry.pseudonyms.conversation("telegram", "chat-9")
    # one span per node, each under the graph run, which sits under the turn
    graph = spans["graph"][0]
    assert graph.parent_id == root.span_id
    assert set(spans) >= NODES
    for node in NODES:
        assert spans[node][0].parent_id == graph.span_id and spans[node][0].end_ns > 0
    # the two LLM calls as generations with model and token usage, under their nodes
    generations = [
        s
        for s in langfuse.trace(trace_id)
        if s.attributes.get("langfuse.observation.type") == "generation"
    ]
    assert {g.parent_id for g in generations} == {
        spans["planner"][0].span_id,
        spans["response_synth"][0].span_id,
    }
    for g in generations:
        assert g.attributes["langfuse.observation.model.name"] == "fake-model"
        assert g.json_attr("langfuse.observation.usage_details") == {
            "input": 11,
            "output": 7,
            "total": 18,
        }
    # tags platform and intent; the turn's summary as metadata
    summary = spans["summary"][0]
    assert set(summary.attributes["langfuse.trace.tags"]) == {"telegram", "simple_faq"}
    meta = {
        k.removeprefix("langfuse.observation.metadata."): json.loads(v)
        for k, v in root.attributes.items()
        if k.startswith("langfuse.observation.metadata.")
    }
    assert meta["intent"] == "simple_faq" and meta["language"] == "en"
    assert meta["used_tools"] == ["retrieve_documents"]
    assert meta["is_out_of_scope"] is False and meta["guard"] == "passed"
    assert meta["llm_calls"] == 2 and meta["retrieval_loops"] == 1
    assert meta["decision_path"] == answer.result.decision_path
    assert "planner" in meta["prompt_versions"]


async def test_feedback_votes_become_scores_on_the_answers_trace(
    traced: tuple[Worker, Telemetry], langfuse: FakeLangfuse, db: Database
) -> None:
    worker, telemetry = traced
    answer = await ask(worker, "passport renewal fee?", platform="slack", user="U1")
    assert answer.message_id is not None  # stored: the buttons point at it
    assert await worker.core.feedback("slack", "U1", answer.message_id, helpful=True, where="C1")
    assert await worker.core.feedback("slack", "U1", answer.message_id, helpful=False, where="C1")
    assert await worker.core.feedback("slack", "U2", answer.message_id, helpful=True, where="C1")
    await asyncio.to_thread(telemetry.flush)
    assert langfuse.wait_for(lambda f: len(f.scores) == 3)
    assert {s["traceId"] for s in langfuse.scores} == {answer.result.trace_id}
    assert {s["name"] for s in langfuse.scores} == {"user_feedback"}
    assert [s["value"] for s in langfuse.scores] == [1.0, 0.0, 1.0]
    # U1's changed vote reuses the score id, so Langfuse keeps only the last one
    ids = [s["id"] for s in langfuse.scores]
    assert ids[0] == ids[1] != ids[2]
    assert "U1" not in json.dumps(langfuse.scores)
    async with db.sessions() as session:  # and stored in Postgres either way
        votes = (await session.execute(text("SELECT count(*) FROM feedback"))).scalar_one()
    assert votes == 2


async def test_personal_data_is_masked_in_store_trace_and_llm_request(
    traced: tuple[Worker, Telemetry], langfuse: FakeLangfuse, openai: FakeOpenAI, db: Database
) -> None:
    worker, telemetry = traced
    secrets = {
        "0912-345-678": "[PHONE]",
        "A123456789": "[ID]",
        "ann@example.org": "[EMAIL]",
        "4111 1111 1111 1111": "[CARD]",
        "sk-abcdefghijklmnop1234": "[API_KEY]",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl": "[JWT]",
    }
    question = (
        "我要辦護照PK-01，案號2024-0012，電話0912-345-678，身分證A123456789，"
        "email ann@example.org，卡號4111 1111 1111 1111，key sk-abcdefghijklmnop1234，"
        "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl，密碼：hunter2"
    )
    openai.script = [PLAN, Reply("護照換發費用為1,300元 [1]。")]
    answer = await ask(worker, question, platform="telegram", user="5")
    await asyncio.to_thread(telemetry.flush)
    async with db.sessions() as session:
        stored = (
            await session.execute(text("SELECT content FROM messages WHERE role = 'user'"))
        ).scalar_one()
    sent_to_llm = json.dumps(openai.requests, ensure_ascii=False)
    traced_text = json.dumps(
        [s.attributes for s in langfuse.trace(answer.result.trace_id)], ensure_ascii=False
    )
    for where in (stored, sent_to_llm, traced_text):
        for raw in secrets:
            assert raw not in where
        assert "hunter2" not in where
        assert "[PHONE]" in where and "[ID]" in where and "[EMAIL]" in where
        # what retrieval needs stays
        assert "PK-01" in where and "2024-0012" in where
    assert stored.count("[") == len(secrets) + 1  # + the password


async def test_ingestion_jobs_are_traced(
    traced: tuple[Worker, Telemetry], langfuse: FakeLangfuse
) -> None:
    worker, telemetry = traced
    admin = worker.core.knowledge
    actor = Actor("telegram", "42", is_admin=True)
    upload_id = await admin.upload(
        actor, "hours.txt", b"The library opens at nine.", None, "public"
    )
    assert await worker.jobs.run_upload(upload_id) == "added"
    await asyncio.to_thread(telemetry.flush)
    span = by_name(langfuse.spans)["ingestion"][0]
    assert set(span.attributes["langfuse.trace.tags"]) == {"ingestion", "telegram"}
    output = span.json_attr("langfuse.observation.output")
    assert output["status"] == "added" and output["chunks"] == 1 and output["seconds"] > 0
    assert span.json_attr("langfuse.observation.input")["file"] == "hours.txt"


async def test_without_keys_nothing_is_sent_and_turns_work(
    db: Database, database_url: str, embedder: Embedder, langfuse: FakeLangfuse
) -> None:
    settings = Settings(_env_file=None, LANGFUSE_HOST=langfuse.url)  # type: ignore[call-arg]
    assert not settings.tracing_enabled
    telemetry = Telemetry.connect(
        Pseudonyms("k"),
        settings.langfuse_public_key,
        None,
        settings.langfuse_host,
    )
    assert not telemetry.enabled
    worker = await traced_worker(database_url, db, embedder, telemetry)
    try:
        answer = await ask(worker, "passport renewal fee?")
        assert answer.citations
        assert answer.message_id is not None
        assert await worker.core.feedback(
            "slack", "U1", answer.message_id, helpful=True, where="C1"
        )
        telemetry.flush()
        time.sleep(0.3)
        assert langfuse.requests == 0
    finally:
        await close_worker(worker)


@pytest.mark.parametrize("mode", ["fail", "hang"])
async def test_a_broken_langfuse_neither_slows_turns_nor_floods_the_log(
    mode: str,
    db: Database,
    database_url: str,
    embedder: Embedder,
    langfuse: FakeLangfuse,
    caplog: pytest.LogCaptureFixture,
) -> None:
    plain = await traced_worker(database_url, db, embedder, None)
    langfuse.mode = mode
    telemetry = connect(langfuse)
    broken = await traced_worker(database_url, db, embedder, telemetry)

    async def median_turn(worker: Worker, n: int = 5) -> float:
        times = []
        for i in range(n):
            start = time.perf_counter()
            await ask(worker, "passport renewal fee?", conv=f"{mode}-{id(worker)}-{i}")
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    try:
        with caplog.at_level(logging.WARNING):
            baseline = await median_turn(plain)
            # several export attempts, each failing (a hung one ends at the export timeout)
            for _ in range(3 if mode == "fail" else 1):
                traced_time = await median_turn(broken)
                await asyncio.to_thread(telemetry.flush)
        assert langfuse.requests >= 1  # it did try
        # a turn held by the exporter would wait out its retries or the export timeout
        # (seconds); a busy machine's noise between the two medians stays under one
        assert traced_time < baseline + min(1.0, EXPORT_TIMEOUT_S / 2), (baseline, traced_time)
        failures = [r for r in caplog.records if "Langfuse" in r.getMessage()]
        assert len(failures) == 1, [r.getMessage() for r in caplog.records]
        # a process stopping does not wait on it longer than the shutdown bound
        await ask(broken, "passport renewal fee?", conv=f"{mode}-last")
        start = time.perf_counter()
        await asyncio.to_thread(telemetry.shutdown)
        assert time.perf_counter() - start < SHUTDOWN_WAIT_S + 1.0
    finally:
        await close_worker(plain)
        await close_worker(broken)
        langfuse.stop()


async def test_the_pseudonym_key_is_generated_once_and_kept(db: Database) -> None:
    first = await load_pseudonyms(db, None)
    second = await load_pseudonyms(db, None)
    assert first.user("slack", "U1") == second.user("slack", "U1")
    assert first.user("slack", "U1") != first.user("telegram", "U1")
    configured = await load_pseudonyms(db, "operator-chosen-key")
    assert configured.user("slack", "U1") != first.user("slack", "U1")


async def test_the_job_worker_purges_past_retention_daily(
    db: Database, database_url: str, embedder: Embedder
) -> None:
    worker = await traced_worker(database_url, db, embedder, None)
    queue = JobQueue(database_url, db, IngestionService(db, embedder, IngestOptions()), None, 30)
    try:
        await ask(worker, "passport renewal fee?", conv="old")
        await ask(worker, "passport renewal fee?", conv="new")
        async with db.transaction() as session:
            await session.execute(
                text(
                    "UPDATE messages SET created_at = now() - interval '31 days'"
                    " FROM conversations c"
                    " WHERE c.id = conversation_id AND c.external_id = 'old'"
                )
            )
            await session.execute(
                text(
                    "UPDATE conversations SET created_at = now() - interval '31 days'"
                    " WHERE external_id = 'old'"
                )
            )
        periodic = {
            p.task.name: p.cron for p in queue.app.periodic_registry.periodic_tasks.values()
        }
        assert periodic["purge_expired"] == "17 3 * * *"  # once a day
        await queue.app.tasks["purge_expired"](timestamp=0)
        async with db.sessions() as session:
            left = (await session.execute(text("SELECT external_id FROM conversations"))).all()
        assert [row[0] for row in left] == ["new"]
    finally:
        await close_worker(worker)
