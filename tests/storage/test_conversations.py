"""The conversations repository: one row per conversation, history as the turns see it."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from storage.db import Database
from storage.models import Conversation, Message
from storage.repositories import conversations as conv_repo


async def test_first_messages_at_once_share_one_conversation(db: Database) -> None:
    async def first() -> int:
        async with db.autocommit() as session:
            conv, history = await conv_repo.with_history(session, "telegram", "42:0", "u1", 5)
            assert history == []
            return conv

    ids = await asyncio.gather(*(first() for _ in range(8)))
    assert len(set(ids)) == 1
    async with db.autocommit() as session:  # a later turn finds it
        found, _ = await conv_repo.with_history(session, "telegram", "42:0", "u1", 5)
        assert found == ids[0]
        rows = await session.scalar(
            select(func.count()).select_from(Conversation).where(Conversation.external_id == "42:0")
        )
    assert rows == 1


async def test_history_is_the_last_unblocked_messages_oldest_first(db: Database) -> None:
    async with db.autocommit() as session:
        conv, _ = await conv_repo.with_history(session, "slack", "C1:1.0", "u1", 2)
    async with db.transaction() as session:
        for n, blocked in enumerate([False, False, True, False]):
            role = "user" if n % 2 == 0 else "assistant"
            await conv_repo.add_message(session, conv, role, f"m{n}", blocked=blocked)
    async with db.autocommit() as session:
        again, history = await conv_repo.with_history(session, "slack", "C1:1.0", "u1", 2)
    assert again == conv and history == [("assistant", "m1"), ("assistant", "m3")]


async def test_a_turn_is_stored_as_its_question_then_its_answer(db: Database) -> None:
    async with db.autocommit() as session:
        conv, _ = await conv_repo.with_history(session, "telegram", "7:0", "u1", 4)
        answer_id = await conv_repo.add_turn(
            session,
            conv,
            {"content": "when does it open?", "details": {"user": "p1"}},
            {"content": "At 9. [1]", "intent": "simple_faq", "citations": [{"n": 1}]},
        )
        _, history = await conv_repo.with_history(session, "telegram", "7:0", "u1", 4)
        stored = (
            await session.execute(
                select(Message.id, Message.role, Message.intent, Message.citations.is_(None))
                .where(Message.conversation_id == conv)
                .order_by(Message.id)
            )
        ).all()
    assert history == [("user", "when does it open?"), ("assistant", "At 9. [1]")]
    # the answer's id is returned; the question's columns it left out are SQL NULL
    assert [(r.role, r.intent, r[3]) for r in stored] == [
        ("user", None, True),
        ("assistant", "simple_faq", False),
    ]
    assert stored[1].id == answer_id
