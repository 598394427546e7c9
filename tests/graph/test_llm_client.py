"""LLM_TIMEOUT and LLM_MAX_RETRIES with the real langchain-openai client and a local fake server."""

from __future__ import annotations

import json
import logging

import pytest

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.events import ErrorReply, Reset, TurnEvent
from graph.llm import ANSWER_MAX_TOKENS
from graph.llm_client import in_body
from graph.models import build_chat_model, token_cap_field
from storage.db import Database
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.fake_openai import FakeOpenAI, Reply, llama_cpp_server

PASSPORT = "# Passport renewal\n\nAn adult passport renewal costs 1,300 dollars.\n"
PLAN = Reply(
    json.dumps(
        {"task_type": "simple_faq", "should_retrieve": True, "query": "passport renewal fee"}
    )
)


async def _service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, url: str, retries: int
) -> AnswerService:
    await ingestion.ingest_bytes("passport.md", PASSPORT.encode())
    llm = build_chat_model(url, "k", "fake", timeout=1.0)
    context = GraphContext(searcher=searcher, llm=llm, llm_timeout=1.0, llm_retries=retries)
    service = AnswerService(db, context)
    service.warm()  # as `ragbot serve` does: the client's lazy imports, not in a 1 s timeout
    return service


async def _run(service: AnswerService, question: str) -> tuple[list[TurnEvent], object]:
    events = [e async for e in service.stream(question)]
    return events, events[-1].result  # type: ignore[union-attr]


async def test_a_timeout_is_retried_and_every_request_counts(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI
) -> None:
    service = await _service(db, ingestion, searcher, fake.url, retries=1)
    # the first answer request says nothing for longer than LLM_TIMEOUT; the retry answers
    fake.script = [PLAN, Reply("It costs 1,300 dollars [1].", delay=1.6), Reply("1,300 [1].")]
    _, result = await _run(service, "passport renewal fee?")
    assert result.decision_path[-2] == "response_synth:llm"  # type: ignore[attr-defined]
    assert result.answer == "1,300 [1]."  # type: ignore[attr-defined]
    assert result.llm_calls == 3  # type: ignore[attr-defined]
    assert len(fake.requests) == 3


async def test_a_slow_stream_is_not_cut_off_once_text_is_shown(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI
) -> None:
    service = await _service(db, ingestion, searcher, fake.url, retries=0)
    long_answer = "An adult passport renewal costs 1,300 dollars [1]. " * 3
    # about 2 s in all, with LLM_TIMEOUT 1 s: the first token comes at once
    fake.script = [PLAN, Reply(long_answer, pace=0.1)]
    events, result = await _run(service, "passport renewal fee?")
    assert result.answer == long_answer.strip()  # type: ignore[attr-defined]
    assert not any(isinstance(e, Reset) for e in events)


async def test_a_cut_off_stream_is_discarded_and_cleared(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI, caplog
) -> None:  # type: ignore[no-untyped-def]
    service = await _service(db, ingestion, searcher, fake.url, retries=1)
    fake.script = [
        PLAN,
        Reply(
            "An adult passport renewal costs 1,300 dollars [{n}]. It takes fo",
            cut=True,
            cite="1,300",
        ),
    ]
    with caplog.at_level(logging.WARNING):
        events, result = await _run(service, "passport renewal fee?")
    assert any(isinstance(e, Reset) for e in events)  # the partial text leaves the screen
    assert result.decision_path[-2] == "response_synth:llm_discarded:no_reply"  # type: ignore[attr-defined]
    assert "1,300 dollars" in result.answer  # type: ignore[attr-defined]
    assert result.llm_calls == 2  # type: ignore[attr-defined]  # shown text is not asked again
    assert "ended without a finish reason" in caplog.text


async def test_an_endpoint_without_v1_says_so(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI, caplog
) -> None:  # type: ignore[no-untyped-def]
    service = await _service(db, ingestion, searcher, fake.url.removesuffix("/v1"), retries=0)
    with caplog.at_level(logging.WARNING):
        _, result = await _run(service, "passport renewal fee?")
    assert "1,300 dollars" in result.answer  # type: ignore[attr-defined]  # the rules answered
    assert "LLM_BASE_URL ends with /v1" in caplog.text


async def test_a_500_refusing_json_schema_steps_down_within_the_turns_two_requests(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, caplog
) -> None:  # type: ignore[no-untyped-def]
    server = llama_cpp_server().start()  # answers json_schema with HTTP 500, as it does
    try:
        service = await _service(db, ingestion, searcher, server.url, retries=1)
        answer = Reply("An adult passport renewal costs 1,300 dollars [{n}].", cite="1,300")
        server.script = [answer]
        with caplog.at_level(logging.INFO):
            _, first = await _run(service, "passport renewal fee?")
            # the planner's json_schema request met the 500: not retried, the rules planned,
            # and the answer's request went out in JSON mode and was used
            kinds = [(r.get("response_format") or {}).get("type") for r in server.requests]
            assert kinds == ["json_schema", "json_object"]
            assert first.llm_calls == 2  # type: ignore[attr-defined]
            assert "planner:simple_faq:fallback" in first.decision_path  # type: ignore[attr-defined]
            assert "response_synth:llm" in first.decision_path  # type: ignore[attr-defined]
            assert "1,300 dollars [1]" in first.answer  # type: ignore[attr-defined]
            # learnt once per process: the next turn asks in JSON mode from the start
            server.requests.clear()
            server.script = [PLAN, answer]
            _, second = await _run(service, "passport renewal fee?")
        kinds = [(r.get("response_format") or {}).get("type") for r in server.requests]
        assert kinds == ["json_object", "json_object"]
        assert second.llm_calls == 2  # type: ignore[attr-defined]
        assert "planner:simple_faq:llm" in second.decision_path  # type: ignore[attr-defined]
        assert caplog.text.count("does not accept response_format json_schema") == 1
        assert caplog.text.count("accepts response_format json_object") == 1
    finally:
        server.stop()


async def test_a_deterministic_4xx_is_not_retried_but_a_plain_500_is(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI
) -> None:
    service = await _service(db, ingestion, searcher, fake.url, retries=2)
    fake.script = [Reply(status=404), Reply(status=404)]  # e.g. an unknown model
    _, result = await _run(service, "passport renewal fee?")
    assert "1,300 dollars" in result.answer  # type: ignore[attr-defined]  # the rules answered
    assert result.llm_calls == 2 and len(fake.requests) == 2  # type: ignore[attr-defined]
    fake.requests.clear()
    fake.script = [Reply(status=500), PLAN, Reply("It costs 1,300 dollars [1].")]
    _, result = await _run(service, "passport renewal fee?")
    assert len(fake.requests) == 3  # the provider error was worth its retry
    assert "response_synth:llm" in result.decision_path  # type: ignore[attr-defined]


async def test_the_token_cap_goes_out_as_max_tokens(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI
) -> None:
    await ingestion.ingest_bytes("passport.md", PASSPORT.encode())
    llm = build_chat_model(fake.url, "k", "fake", timeout=1.0, max_tokens=300)
    service = AnswerService(db, GraphContext(searcher=searcher, llm=llm, llm_timeout=1.0))
    service.warm()
    fake.script = [PLAN, Reply("It costs 1,300 dollars [1].")]
    await _run(service, "passport renewal fee?")
    # the answer's own cap is the lower of the two
    assert [r.get("max_tokens") for r in fake.requests] == [300, min(300, ANSWER_MAX_TOKENS)]
    assert not any("max_completion_tokens" in r for r in fake.requests)


async def test_the_answer_request_is_capped_for_a_short_answer(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI
) -> None:
    # the answer's cap is ANSWER_MAX_TOKENS under a larger LLM_MAX_TOKENS; the plan's is
    # LLM_MAX_TOKENS
    await ingestion.ingest_bytes("passport.md", PASSPORT.encode())
    llm = build_chat_model(fake.url, "k", "fake", timeout=1.0, max_tokens=1024)
    service = AnswerService(db, GraphContext(searcher=searcher, llm=llm, llm_timeout=1.0))
    service.warm()
    fake.script = [PLAN, Reply("It costs 1,300 dollars [1].")]
    await _run(service, "passport renewal fee?")
    assert [r.get("max_tokens") for r in fake.requests] == [1024, ANSWER_MAX_TOKENS]
    assert llm.extra_body == {"max_tokens": 1024}  # the model's own is left as it was


@pytest.mark.parametrize(
    ("base_url", "field"),
    [
        (
            "https://api.openai.com/v1",
            "max_completion_tokens",
        ),  # its reasoning models refuse max_tokens
        ("http://127.0.0.1:8000/v1", "max_tokens"),  # llama_cpp.server ignores the other
        ("http://localhost:11434/v1", "max_tokens"),  # Ollama
        ("https://vllm.internal.example/v1", "max_tokens"),
    ],
)
def test_the_token_cap_field_is_the_one_the_endpoint_honours(base_url: str, field: str) -> None:
    assert token_cap_field(base_url) == field


async def test_a_plan_cut_by_the_token_cap_falls_back_to_the_rules(
    db: Database,
    ingestion: IngestionService,
    searcher: HybridSearcher,
    fake: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # a server honouring a small cap cuts the planner's JSON short (finish_reason "length"):
    # the turn plans by its rules and answers, instead of failing with the SDK's own error
    await ingestion.ingest_bytes("passport.md", PASSPORT.encode())
    llm = build_chat_model(fake.url, "k", "fake", timeout=1.0, max_tokens=6)
    service = AnswerService(db, GraphContext(searcher=searcher, llm=llm, llm_timeout=1.0))
    service.warm()
    fake.cap_fields = ("max_tokens",)
    fake.script = [PLAN, Reply("It costs 1,300 dollars [1].")]
    with caplog.at_level(logging.WARNING):
        events, result = await _run(service, "passport renewal fee?")
    assert not any(isinstance(e, ErrorReply) for e in events)
    assert any("cut off at LLM_MAX_TOKENS" in r.getMessage() for r in caplog.records)
    path = result.decision_path  # type: ignore[attr-defined]
    assert any(step.startswith("planner:") and step.endswith(":fallback") for step in path)
    assert result.answer.startswith("It costs 1,300 dollars [1]")  # type: ignore[attr-defined]


def test_the_response_format_travels_in_the_body_beside_the_token_cap() -> None:
    # the same JSON on the wire, without langchain-openai's structured helpers (which parse
    # the whole reply so far on every streamed chunk)
    llm = build_chat_model("http://127.0.0.1:9/v1", "k", "fake", timeout=1.0, max_tokens=300)
    fmt = {"type": "json_object"}
    moved = in_body(llm, {"response_format": fmt, "stop": ["x"]})
    assert moved == {"stop": ["x"], "extra_body": {"max_tokens": 300, "response_format": fmt}}
    assert llm.extra_body == {"max_tokens": 300}  # the model's own is left as it was
    assert in_body(llm, {"stop": ["x"]}) == {"stop": ["x"]}
