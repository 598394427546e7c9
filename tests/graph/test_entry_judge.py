"""An FAQ entry the embedder leaves unsure, confirmed by the model (graph.entry_judge)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.entry_judge import judge_entry, unsure_entry
from graph.entry_question import MEANING_LEAD
from graph.llm_client import CallLimits
from graph.models import build_chat_model, warm_chat_model
from graph.nodes.retrieval_checker import retrieval_checker
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.faq_entries import ENTRIES, faq_page
from tests.support.node_fakes import FakeLLM, chunk, runtime

REMOVED = ENTRIES[5]  # the cash machine entry: its paraphrase must stay refused


def entry(chunk_id: int, question: str, cosine: float, lead: float, **more: Any) -> dict:
    """An FAQ entry of the question's language as a turn's candidate, compared with the
    collection (`rival_cosine`), under the word-based test's bar."""
    return {
        **chunk(chunk_id, 0.2, f"A: the answer to {question}", "city-faq", support=0.1),
        "question": question,
        "question_cosine": cosine,
        "question_lead": lead,
        "rival_cosine": cosine - lead,
        "rival_entries": 9,
        **more,
    }


@pytest.mark.parametrize(
    ("entries", "unsure"),
    [
        ([entry(1, "A?", 0.50, 0.06), entry(2, "B?", 0.44, -0.06)], 1),  # nearest, by little
        ([entry(1, "A?", 0.50, MEANING_LEAD)], None),  # answers by meaning already
        ([entry(1, "A?", 0.50, -0.01)], None),  # another entry is nearer
        ([entry(1, "A?", 0.25, 0.06)], None),  # too far from every entry
        ([entry(1, "A?", 0.50, 0.06, cross_language=True)], None),  # judged across
        # a small FAQ, an everyday question about another thing nearer
        ([entry(1, "A?", 0.50, 0.06, rival_entries=2, everyday_cosine=0.6)], None),
    ],
)
def test_the_entry_put_to_the_model_is_the_nearest_by_a_small_lead(
    entries: list[dict], unsure: int | None
) -> None:
    found = unsure_entry(entries)
    assert (found["chunk_id"] if found else None) == unsure


@pytest.mark.parametrize(
    ("reply", "same"), [("yes", True), ("Yes.", True), ("no", False), ("I think so", False)]
)
async def test_only_a_yes_confirms_the_entry(reply: str, same: bool) -> None:
    llm = FakeLLM([reply])
    said, calls = await judge_entry(
        llm, "pay taxes monthly", entry(1, "Tax?", 0.5, 0.05), CallLimits()
    )
    assert (said, calls) == (same, 1)
    system, user = (m.content for m in llm.seen[0])
    assert system.startswith("You decide whether an FAQ entry answers")
    assert "User's question: pay taxes monthly" in user and "FAQ question: Tax?" in user


async def test_a_model_error_leaves_the_entry_unconfirmed() -> None:
    llm = FakeLLM([TimeoutError()])
    assert await judge_entry(llm, "q", entry(1, "Q?", 0.5, 0.05), CallLimits()) == (False, 1)


@pytest.mark.parametrize(
    ("reply", "calls_before", "status", "asked"),
    [
        ("yes", 0, "generate", True),  # confirmed: answered from the entry
        ("no", 0, "fallback", True),
        ("yes", 1, "fallback", False),  # the plan took a request: plan and answer only
    ],
)
async def test_the_checker_grounds_an_entry_the_model_confirms(
    reply: str, calls_before: int, status: str, asked: bool
) -> None:
    llm = FakeLLM([reply])
    rt, _ = runtime(llm=llm)
    evidence = [
        entry(1, "How do I pay tax in instalments?", 0.48, 0.07),
        entry(2, "B?", 0.41, -0.07),
    ]
    state = {
        "retrieval": {"loop": 3, "threshold": 0.35},
        "evidence": evidence,
        "normalized_question": "pay taxes monthly",
        "llm_calls": calls_before,
    }
    out = await retrieval_checker(state, rt)  # type: ignore[arg-type]
    assert out["retrieval"]["status"] == status
    assert bool(llm.seen) == asked and out.get("llm_calls", 0) == (1 if asked else 0)
    if asked:
        assert out["decision_path"][0] == f"retrieval_checker:entry_judge:{reply}"
    grounded = [e["chunk_id"] for e in out["evidence"] if e["grounded"]]
    assert grounded == ([1] if status == "generate" else [])


async def test_no_model_is_asked_when_a_passage_is_grounded_already() -> None:
    llm = FakeLLM(["yes"])
    rt, _ = runtime(llm=llm)
    evidence = [chunk(1, 0.8, "Passports cost 1,300 dollars."), entry(2, "Tax?", 0.48, 0.07)]
    state = {"retrieval": {"loop": 1, "threshold": 0.65}, "evidence": evidence}
    out = await retrieval_checker(state, rt)  # type: ignore[arg-type]
    assert out["retrieval"]["status"] == "generate" and llm.seen == []


def the_model(asked_for: dict[str, str]) -> Any:
    """A fake model that knows which entry each paraphrase was written for: "yes" to the
    entry check only for that entry; an answer resting on the entry's first words."""

    def respond(body: dict[str, Any]) -> Reply:
        system = str(body["messages"][0]["content"])
        user = str(body["messages"][-1]["content"])
        if system.startswith("You decide whether an FAQ entry answers"):
            asked = user.split("User's question: ", 1)[1].split("\n", 1)[0]
            return Reply("yes" if asked_for.get(asked, "\0") in user else "no")
        needle = next((e.answer[:20] for e in ENTRIES if e.answer[:20] in user), "")
        claim = next((e.answer.split(";")[0] for e in ENTRIES if e.answer[:20] == needle), "")
        body = {"answerable": True, "claims": [{"sentence": "{id}", "claim": claim}]}
        return Reply(json.dumps(body), cite=needle)

    return respond


async def test_paraphrases_the_embedder_leaves_unsure_are_answered_with_a_model(
    db: Database,
    searcher: HybridSearcher,
    ingestion: IngestionService,
    embedder: Embedder,
    fake: FakeOpenAI,
) -> None:
    kept = [e for e in ENTRIES if e is not REMOVED]
    assert (await ingestion.ingest_bytes("city-faq.txt", faq_page(kept).encode())).chunks
    fake.responder = the_model({e.asked: e.question for e in kept})
    llm = build_chat_model(fake.url, "test-key", "fake-model", timeout=5.0)
    warm_chat_model(llm)
    base = GraphContext(searcher=searcher, embedder=embedder.model, llm_timeout=5.0)
    without = AnswerService(db, base)
    # as the runtime's default LLM_PLANNER: a first message planned by the rules
    with_model = AnswerService(db, dataclasses.replace(base, llm=llm, llm_planner="unsure"))
    gained = 0
    for one in ENTRIES:
        alone = await without.ask(one.asked)
        result = await with_model.ask(one.asked)
        assert result.llm_calls <= 2, result.decision_path
        if "retrieval_checker:entry_judge:yes" in result.decision_path:
            # answered from the entry it was written for, never another's
            assert one.answer[:30] in result.answer, (one.asked, "|".join(result.decision_path))
            assert [c["document"] for c in result.citations] == ["city-faq"]
            gained += alone.outcome == "refused"
        if one is REMOVED:
            assert result.outcome == "refused" and result.citations == []
    # what a user notices: questions the bot refused without a model now answered
    assert gained >= 5  # 7 of the 29 with the local embedder (2026-11-30)
