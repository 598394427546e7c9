"""Turns in worker processes (TURN_PROCESSES): a real spawned worker on the test database,
the real model client talking to the fake OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy import text

from bot.app.turn_processes import TurnProcesses
from bot.settings import Settings
from graph.events import ErrorReply, FinalAnswer, Progress, Token, TurnEvent
from storage.db import Database
from storage.ingestion import IngestionService
from tests.support.fake_openai import FakeOpenAI, Reply

PASSPORT = (
    b"# Passport renewal\n\nAn adult passport renewal costs 1,300 dollars"
    b" and takes four working days.\n"
)
PLAN = Reply(
    json.dumps(
        {
            "task_type": "simple_faq",
            "should_retrieve": True,
            "query": "passport renewal fee",
            "alternates": [],
        }
    )
)
ANSWER = "An adult passport renewal costs 1,300 dollars [{n}]."


def slow(words: int) -> Reply:
    """An answer written slowly (a long one: time to stop it, or to kill its worker)."""
    long = " ".join(["An adult passport renewal costs 1,300 dollars [{n}]."] * words)
    return Reply(long, cite="1,300", pace=0.05)


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
async def pool(database_url: str, llm: FakeOpenAI) -> AsyncIterator[TurnProcesses]:
    """One worker for the module's tests (a start costs seconds): as `ragbot serve` runs it."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        LLM_BASE_URL=llm.url,
        LLM_MODEL="fake",
        LLM_API_KEY="k",
        LLM_TIMEOUT="10",
        LLM_PLANNER="always",  # the scripts below answer a planning call, then the answer
        MEMORY_ENABLED="false",
        TURN_NICE="5",
    )
    turns = TurnProcesses(settings, database_url, 1)
    await turns.open()
    try:
        yield turns
    finally:
        await turns.close()


@pytest.fixture
async def turns(pool: TurnProcesses, ingestion: IngestionService, llm: FakeOpenAI) -> TurnProcesses:
    assert (await ingestion.ingest_bytes("passport.md", PASSPORT)).status == "added"
    llm.script, llm.pieces_sent = [], 0
    return pool


async def test_a_turn_in_a_worker_streams_answers_and_is_stored(
    turns: TurnProcesses, llm: FakeOpenAI, db: Database
) -> None:
    llm.script = [PLAN, Reply(ANSWER, cite="1,300")]
    waited = {"taken": 12.5}
    events: list[TurnEvent] = []
    async for event in turns.stream("passport fee?", conversation="c1", waited_ms=waited):
        events.append(event)
    assert any(isinstance(e, Progress) for e in events)
    assert any(isinstance(e, Token) and "1,300" in e.text for e in events)
    final = events[-1]
    assert isinstance(final, FinalAnswer), final
    assert final.text.startswith("An adult passport renewal costs 1,300 dollars [1]")
    assert final.citations[0]["document"] == "passport"
    assert final.result.timings_ms["taken"] == 12.5  # what the caller waited, kept
    async with db.sessions() as session:
        roles = (
            await session.execute(
                text(
                    "SELECT m.role FROM messages m JOIN conversations c"
                    " ON c.id = m.conversation_id WHERE c.external_id = 'c1' ORDER BY m.id"
                )
            )
        ).scalars()
        assert list(roles) == ["user", "assistant"]


async def test_stop_reaches_the_turn_in_its_worker(turns: TurnProcesses, llm: FakeOpenAI) -> None:
    llm.script = [PLAN, slow(40)]
    stop = asyncio.Event()
    events: list[TurnEvent] = []
    async for event in turns.stream("passport fee?", conversation="c2", stop=stop):
        events.append(event)
        if isinstance(event, Token):
            stop.set()  # the asker pressed Stop once the answer began
    final = events[-1]
    assert isinstance(final, FinalAnswer)
    assert final.result.outcome == "stopped"
    assert "1,300" in final.text
    assert llm.pieces_sent < 100  # the long answer was not written to its end


async def test_workers_yield_the_cpu_to_the_serving_process(turns: TurnProcesses) -> None:
    # TURN_NICE (default 5): under load the serving process's acks and sends come first
    own = os.getpriority(os.PRIO_PROCESS, 0)
    for worker in turns._workers:
        assert worker is not None
        assert os.getpriority(os.PRIO_PROCESS, worker.process.pid) == min(19, own + 5)


async def test_a_worker_that_dies_ends_its_turn_clearly_and_the_next_turn_runs(
    turns: TurnProcesses, llm: FakeOpenAI
) -> None:
    llm.script = [PLAN, slow(40)]
    events: list[TurnEvent] = []
    async for event in turns.stream("passport fee?", conversation="c3", language="en"):
        events.append(event)
        if isinstance(event, Token):
            for worker in turns._workers:  # killed (out of memory, say) mid-answer
                assert worker is not None
                worker.process.kill()
    final = events[-1]
    assert isinstance(final, ErrorReply) and final.error == "WorkerLost"
    assert final.text  # the usual apology, not a stack trace
    llm.script = [PLAN, Reply(ANSWER, cite="1,300")]
    again = [e async for e in turns.stream("passport fee?", conversation="c4")]
    assert isinstance(again[-1], FinalAnswer) and "1,300" in again[-1].text


async def test_a_caller_that_stops_listening_cancels_the_turn_in_its_worker(
    turns: TurnProcesses, llm: FakeOpenAI, db: Database
) -> None:
    llm.script = [PLAN, slow(40)]
    stream = turns.stream("passport fee?", conversation="c5")
    async for event in stream:
        if isinstance(event, Token):
            break
    await stream.aclose()  # a drain, or an HTTP client gone

    async def stored() -> list[str]:
        async with db.sessions() as session:
            rows = await session.execute(
                text(
                    "SELECT m.details->>'error' FROM messages m JOIN conversations c"
                    " ON c.id = m.conversation_id WHERE c.external_id = 'c5'"
                    " AND m.role = 'user'"
                )
            )
            return [str(r) for r in rows.scalars()]

    deadline = asyncio.get_running_loop().time() + 20
    while await stored() != ["cancelled"] and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.1)
    assert await stored() == ["cancelled"]
    assert llm.pieces_sent < 100  # the model call was cancelled, not left writing to its end
