"""The whole graph on real Postgres in no-LLM mode, through the turn service."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from bot.turn.service import AnswerService
from graph.context import GraphContext
from storage.db import Database
from storage.forms import FormFile, FormFinder, FormService
from storage.ingestion import IngestionService
from storage.search import HybridSearcher
from textkit.catalog import say

DOCS = {
    "停車許可證.md": (
        "# 住宅區停車許可證\n\n設籍本市的居民可以申請住宅區停車許可證，每戶最多兩張。\n\n"
        "## 應備文件\n\n請攜帶身分證、行車執照正本，以及填妥的申請表 PK-01。\n\n"
        "## 費用\n\n每張許可證每年收費新臺幣一千二百元。\n"
    ),
    "passport.md": (
        "# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
        "## Fees\n\nAn adult passport renewal costs 1,300 dollars and takes four working days.\n"
    ),
}


@pytest.fixture
async def service(
    db: Database, ingestion: IngestionService, searcher: HybridSearcher
) -> AnswerService:
    for name, body in DOCS.items():
        assert (await ingestion.ingest_bytes(name, body.encode())).status == "added"
    forms = FormService(db, 10_000)
    await forms.add(
        "Passport application form PS-11",
        "https://forms.example.org/ps-11",
        aliases=["護照申請書", "护照申请表", "passport form"],
        language="en",
    )
    return AnswerService(db, GraphContext(searcher=searcher, forms=FormFinder(db)))


async def test_answers_with_citations(service: AnswerService) -> None:
    result = await service.ask("How much does a passport renewal cost?")
    assert "1,300 dollars" in result.answer
    assert "[1]" in result.answer
    assert result.citations[0]["document"] == "passport"
    assert result.language == "en" and result.intent == "simple_faq"
    assert result.llm_calls == 0
    assert result.decision_path[0] == "guard" and result.decision_path[-1] == "telemetry"
    assert set(result.timings_ms) >= {"guard", "planner", "tool_executor", "response_synth"}


async def test_simplified_question_gets_a_simplified_answer_from_traditional_docs(
    service: AnswerService,
) -> None:
    result = await service.ask("停车许可证一年多少钱？")
    assert result.language == "zh-hans"
    assert result.citations and result.citations[0]["document"] == "停車許可證"
    assert "许可证" in result.answer and "許可證" not in result.answer


async def test_greeting_takes_no_retrieval(service: AnswerService) -> None:
    result = await service.ask("你好")
    assert result.intent == "greeting"
    assert not any(step.startswith("tool_executor") for step in result.decision_path)
    assert "您好" in result.answer


async def test_out_of_scope_is_refused_after_the_retries(service: AnswerService) -> None:
    result = await service.ask("What is the airspeed velocity of an unladen swallow?")
    assert "documents don't answer" in result.answer and result.outcome == "refused"
    assert result.citations == []
    assert result.retrieval_loops == 3
    assert [s for s in result.decision_path if s.startswith("query_builder")] == [
        "query_builder:loop1",
        "query_builder:loop2",
        "query_builder:loop3",
    ]
    # loop 3's rules rewrite equals loop 2's: the same chunks are regraded, not searched again
    assert "tool_executor:retrieve_documents:cached" in result.decision_path
    assert any("fallback" in s for s in result.decision_path)


async def test_follow_up_uses_history_from_postgres(service: AnswerService, db: Database) -> None:
    first = await service.ask("How do I renew my passport?", conversation="c1", user="ann")
    assert first.citations[0]["document"] == "passport"
    second = await service.ask("And how much does that cost?", conversation="c1", user="ann")
    assert second.intent == "conversation_followup"
    assert "followup_transform" in second.decision_path
    assert "1,300" in second.answer
    async with db.sessions() as s:
        rows = (
            await s.execute(
                text(
                    "SELECT m.role, m.trace_id IS NOT NULL FROM messages m JOIN conversations c"
                    " ON c.id = m.conversation_id WHERE c.external_id = 'c1' ORDER BY m.id"
                )
            )
        ).all()
    assert [r[0] for r in rows] == ["user", "assistant", "user", "assistant"]
    assert all(r[1] for r in rows)


async def test_a_place_picking_nothing_is_asked_for_and_then_forgotten(
    service: AnswerService,
) -> None:
    await service.ask("How do I renew my passport?", conversation="c-place")
    # no list was offered: "the second one" of what? asked, not guessed at
    unclear = await service.ask("the second one", conversation="c-place")
    assert unclear.answer == say("no_offer", "en") and unclear.citations == []
    assert unclear.outcome == "smalltalk" and unclear.llm_calls == 0
    # the next follow-up leans on the passport, not on "the second one"
    fee = await service.ask("how much?", conversation="c-place")
    assert fee.intent == "conversation_followup" and "1,300 dollars" in fee.answer
    assert fee.query["standalone"] == "how much? renew passport"


async def test_a_chinese_follow_up_naming_nothing_is_about_the_last_question(
    service: AnswerService,
) -> None:
    first = await service.ask("住宅區停車許可證怎麼申請？", conversation="c-zh-fee")
    assert "一千二百" not in first.answer
    fee = await service.ask("要多少錢？", conversation="c-zh-fee")
    assert fee.intent == "conversation_followup" and "一千二百元" in fee.answer
    assert fee.language == "zh-hant"


OFFICE_HOURS = (
    "City Service Centre opening hours\n\nThe City Service Centre at 1 Harbour Road is open "
    "Monday to Friday from 8:30 to 17:30. Queue tickets stop being issued 30 minutes before "
    "closing. Phone enquiries: 1999 (free from local numbers).\n"
)


async def test_a_price_asked_of_the_opening_hours_is_refused_not_quoted(
    service: AnswerService, ingestion: IngestionService
) -> None:
    assert (await ingestion.ingest_bytes("office-hours.txt", OFFICE_HOURS.encode())).status == (
        "added"
    )
    hours = await service.ask("When is the service centre open?", conversation="c-hours")
    assert "8:30 to 17:30" in hours.answer
    # an hour, a stretch of minutes, a street number and a number to dial are no price,
    # and the passport page's fee is no price of the centre: refused, nothing quoted
    for question, conversation in (
        ("how much?", "c-hours"),
        ("How much does the City Service Centre charge?", None),
    ):
        asked = await service.ask(question, conversation=conversation)
        assert asked.citations == [] and asked.outcome == "refused", asked.answer
    # a price the page states is still the answer, bare or with its currency
    fee = await service.ask("How much does a passport renewal cost?")
    assert "1,300 dollars" in fee.answer


@pytest.mark.parametrize(
    "question",
    ["我要下載護照申請書", "护照申请表在哪里下载？", "Where can I download the passport form?"],
)
async def test_forms_found_by_alias_in_three_languages(
    service: AnswerService, question: str
) -> None:
    result = await service.ask(question)
    assert result.intent == "form_download"
    assert [f["name"] for f in result.forms] == ["Passport application form PS-11"]
    assert "https://forms.example.org/ps-11" in result.answer


async def test_blocked_message_is_answered_and_recorded(service: AnswerService) -> None:
    result = await service.ask("   ")
    assert result.decision_path == ["guard:blocked:empty", "telemetry"]
    assert "Please type a question" in result.answer


async def test_form_file_is_offered_and_exported(service: AnswerService, db: Database) -> None:
    await FormService(db, 10_000).add(
        "住宅區停車許可證申請表 PK-01",
        None,
        FormFile("pk-01.pdf", b"%PDF-1.4 form"),
        aliases=["停車證申請表", "停车证申请表", "parking permit form"],
    )
    result = await service.ask("请给我停车证申请表")
    assert result.forms == [
        {
            "name": "住宅區停車許可證申請表 PK-01",
            "url": None,
            "file_name": "pk-01.pdf",
            "send_file": True,
        }
    ]
    exported = await service.export_form_file(result.forms[0]["name"])
    assert exported is not None and exported.data == b"%PDF-1.4 form"
    assert await service.export_form_file("no such form") is None


async def test_every_step_of_a_turn_runs_on_the_event_loops_thread(
    service: AnswerService, db: Database, searcher: HybridSearcher, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LangGraph would run sync nodes and routing functions in a thread pool: a thread hop
    # per step, each waiting for the interpreter lock behind the other turns
    import functools
    import threading

    import graph.builder as builder

    seen: dict[str, int] = {}

    def on_thread(step: Any) -> Any:
        @functools.wraps(step)
        def run(*args: Any, **kwargs: Any) -> Any:
            seen[step.__name__] = threading.get_ident()
            return step(*args, **kwargs)

        return run

    sync_steps = [
        "language_normalizer",
        "consolidate_memory",
        "telemetry",
        "route_after_guard",
        "route_after_memory",
        "route_after_planner",
        "route_after_retrieval_checker",
    ]
    for name in sync_steps:
        monkeypatch.setattr(builder, name, on_thread(getattr(builder, name)))
    watched = AnswerService(db, GraphContext(searcher=searcher, forms=FormFinder(db)))
    result = await watched.ask("How much does a passport renewal cost?")
    assert "1,300 dollars" in result.answer
    assert set(seen) == set(sync_steps)
    assert set(seen.values()) == {threading.get_ident()}
