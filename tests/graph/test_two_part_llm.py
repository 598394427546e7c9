"""Two-part questions with a model: the answered parts and their evidence go to the
model in the turn's one synthesis call; a missing part is said missing after it."""

from __future__ import annotations

import pytest

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.models import build_chat_model, warm_chat_model
from storage.db import Database
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.graph.test_graph_llm import citing, plan_reply
from tests.graph.test_two_part_questions import DOCS
from tests.support.fake_openai import FakeOpenAI, Reply


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher, fake: FakeOpenAI
) -> AnswerService:
    for name, body in DOCS.items():
        assert (await ingestion.ingest_bytes(name, body.encode())).status == "added"
    llm = build_chat_model(fake.url, "test-key", "fake-model", timeout=1.0)
    warm_chat_model(llm)
    return AnswerService(db, GraphContext(searcher=searcher, llm=llm, llm_timeout=1.0))


async def test_both_parts_go_to_the_model_in_one_call(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    fake.script = [
        plan_reply(query="passport renewal fee documents"),
        citing("1,300", "An adult renewal costs 1,300 dollars [{n}]."),
    ]
    result = await service.ask(
        "How much does it cost to renew a passport and what documents do I need to bring?"
    )
    assert result.llm_calls == 2 and len(fake.requests) == 2
    prompt = str(fake.requests[1]["messages"][-1]["content"])
    # each part's evidence is in the one synthesis request
    assert "1,300 dollars" in prompt and "colour photo" in prompt
    assert result.answer.startswith("An adult renewal costs 1,300 dollars [")
    assert "don't say" not in result.answer
    assert "response_synth:parts:answered,answered" in result.decision_path
    assert "response_synth:llm" in result.decision_path


async def test_a_missing_part_is_said_missing_after_the_models_answer(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    fake.script = [
        plan_reply(query="passport renewal fee"),
        citing("1,300", "An adult renewal costs 1,300 dollars [{n}]."),
    ]
    result = await service.ask(
        "How much does it cost to renew a passport and can I bring my pet parrot to the office?"
    )
    assert result.llm_calls == 2
    assert result.answer.startswith("An adult renewal costs 1,300 dollars [")
    assert result.answer.endswith(
        'On "can I bring my pet parrot to the office":\n- Our documents don\'t say this.'
    )
    assert result.citations[0]["document"] == "passport"
    assert "response_synth:parts:answered,missing" in result.decision_path


async def test_a_discarded_model_answer_gives_each_parts_extractive_answer(
    service: AnswerService, fake: FakeOpenAI
) -> None:
    fake.script = [plan_reply(query="passport renewal fee"), Reply("Renewal is easy.")]
    result = await service.ask(
        "How much does it cost to renew a passport and what documents do I need to bring?"
    )
    assert result.llm_calls == 2
    assert any(s.startswith("response_synth:llm_discarded:") for s in result.decision_path)
    assert result.decision_path[-2] == "response_synth:parts"
    assert "1,300 dollars" in result.answer and "colour photo" in result.answer
    assert "Renewal is easy" not in result.answer
