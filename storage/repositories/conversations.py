"""Conversations and their messages (the history follow-ups use)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import null, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import Conversation, Message

# the longest an unfinished turn's question waits for the turn's own store to end
UNFINISHED_WAIT = "5s"


async def with_history(
    session: AsyncSession, platform: str, external_id: str, user_id: str | None, limit: int
) -> tuple[int, list[tuple[str, str]]]:
    """The conversation's id (created on first use) and its last `limit` messages.

    One query for a conversation that exists (every turn after the first): its id and
    history together, in autocommit a single round trip before the turn can start.
    """
    for _ in range(2):
        rows = (
            await session.execute(
                text(
                    "SELECT c.id, m.role, m.content FROM conversations c LEFT JOIN LATERAL"
                    " (SELECT id, role, content FROM messages WHERE conversation_id = c.id"
                    " AND NOT blocked ORDER BY id DESC LIMIT :n) m ON true"
                    " WHERE c.platform = :platform AND c.external_id = :external"
                    " ORDER BY m.id"
                ),
                {"platform": platform, "external": external_id, "n": limit},
            )
        ).all()
        if rows:
            return int(rows[0][0]), [(r[1], r[2]) for r in rows if r[1] is not None]
        created = await session.scalar(
            insert(Conversation)
            .values(platform=platform, external_id=external_id, user_id=user_id)
            .on_conflict_do_nothing(constraint="uq_conversations_platform_external")
            .returning(Conversation.id)
        )
        if created is not None:
            return int(created), []
        # another first message created it meanwhile: read it (and what it holds)
    raise RuntimeError(f"conversation {platform}/{external_id} neither found nor created")


async def add_message(
    session: AsyncSession, conversation_id: int, role: str, content: str, **fields: Any
) -> Message:
    """Append a message."""
    message = Message(conversation_id=conversation_id, role=role, content=content, **fields)
    session.add(message)
    await session.flush()
    return message


async def add_unfinished_question(
    session: AsyncSession, conversation_id: int, trace_id: str, content: str, **fields: Any
) -> bool:
    """Store the question of a turn that did not finish, unless its turn's question is
    stored already (False then).

    A turn cancelled while its answer's COMMIT was on its way may find that COMMIT
    landed: the question's unique index (`ux_messages_turn_question`) makes this
    insert wait for that transaction (at most `UNFINISHED_WAIT`) and then do nothing,
    instead of a second copy.
    """
    await session.execute(text(f"SET LOCAL lock_timeout = '{UNFINISHED_WAIT}'"))
    stored = await session.scalar(
        insert(Message)
        .values(
            conversation_id=conversation_id,
            role="user",
            content=content,
            trace_id=trace_id,
            **fields,
        )
        .on_conflict_do_nothing(
            index_elements=[Message.trace_id],
            # the index's own predicate, as literal SQL: with a bound parameter for 'user',
            # a prepared statement's generic plan cannot infer the partial index
            index_where=text("role = 'user' AND trace_id IS NOT NULL"),
        )
        .returning(Message.id)
    )
    return stored is not None


async def add_turn(
    session: AsyncSession,
    conversation_id: int,
    question: dict[str, Any],
    answer: dict[str, Any],
) -> int:
    """Append a question and its answer (each a dict of `Message` columns, `content`
    among them) in one statement; the answer's id.

    One INSERT of two rows (the pair is stored whole or not at all); the question's id
    comes first from the sequence (history's order). A column one of them leaves out
    is NULL there, not its Python default: give both what must not be NULL.
    """
    rows = [
        {**question, "conversation_id": conversation_id, "role": "user"},
        {**answer, "conversation_id": conversation_id, "role": "assistant"},
    ]
    # one statement's rows name the same columns: one a row leaves out is SQL NULL there
    # (`null()`, not JSON's null in a JSONB column)
    columns = dict.fromkeys(key for row in rows for key in row)  # one order: one statement
    rows = [{key: row.get(key, null()) for key in columns} for row in rows]
    stored = await session.execute(insert(Message).values(rows).returning(Message.id, Message.role))
    return next(int(id_) for id_, role in stored if role == "assistant")


async def find_id(session: AsyncSession, platform: str, external_id: str) -> int | None:
    """The conversation's id, or None when it has not been started."""
    found = await session.scalar(
        select(Conversation.id).where(
            Conversation.platform == platform, Conversation.external_id == external_id
        )
    )
    return None if found is None else int(found)


async def answer_in(
    session: AsyncSession, message_id: int, platform: str, external_id: str
) -> Message | None:
    """The answer `message_id` if it was given in exactly that conversation, else None."""
    return await session.scalar(
        select(Message)
        .join(Conversation, Conversation.id == Message.conversation_id)
        .where(
            Message.id == message_id,
            Message.role == "assistant",
            Conversation.platform == platform,
            Conversation.external_id == external_id,
        )
    )


async def shown_messages(
    session: AsyncSession, platform: str, external_id: str, limit: int
) -> list[Message] | None:
    """The conversation's last `limit` messages, oldest first, as its asker saw them
    (blocked ones left out); None when the conversation was never started."""
    conversation = await find_id(session, platform, external_id)
    if conversation is None:
        return None
    newest = (
        select(Message)
        .where(Message.conversation_id == conversation, Message.blocked.is_(False))
        .order_by(Message.id.desc())
        .limit(limit)
    )
    return list(reversed((await session.scalars(newest)).all()))
