"""Which refused turns are documentation gaps: not those the rules read as a request to
make something or to reach a person; a question the model's planner called out of scope
still is one (the model may be wrong)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from storage.db import Database
from storage.repositories import conversations as conv_repo
from storage.repositories import gap_reasks, handoff_reports


def _trace(intent: str, source: str) -> dict[str, object]:
    return {"trace": {"is_out_of_scope": True, "intent": intent, "plan_source": source}}


async def test_only_refusals_a_document_could_answer_are_gaps(db: Database) -> None:
    turns = [
        ("Where do I register my dog?", _trace("simple_faq", "rules")),
        ("Can I talk to a real person?", _trace("out_of_scope", "rules")),
        ("幫我寫一首詩", _trace("out_of_scope", "rules")),
        ("What is the best mortgage for me?", _trace("out_of_scope", "llm")),
        # a turn stored before intents were traced
        ("When does the pool open?", {"trace": {"is_out_of_scope": True}}),
    ]
    async with db.autocommit() as session:
        for n, (question, details) in enumerate(turns):
            conv, _ = await conv_repo.with_history(session, "telegram", f"{n}:0", "u1", 2)
            await conv_repo.add_turn(
                session,
                conv,
                {"content": question, "trace_id": f"t{n}", "details": {"user": "p1"}},
                {"content": "Sorry.", "trace_id": f"t{n}", "details": details},
            )
    since = datetime.now(UTC) - timedelta(hours=1)
    async with db.sessions() as session:
        gaps = {g["question"] for g in await handoff_reports.gap_questions(session, since)}
        reasks = {g["question"] for g in await gap_reasks.open_questions(session, since, 50)}
    expected = {"Where do I register my dog?", "What is the best mortgage for me?"}
    expected.add("When does the pool open?")
    assert gaps == expected and reasks == expected
