"""The conversations repository: one row per conversation, history as the turns see it."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select

from storage.db import Database
from storage.models import Conversation
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
