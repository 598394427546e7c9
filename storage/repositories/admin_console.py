"""The admin console's rows: sign-in sessions, the answers it publishes, votes, citations.

Never commits: the caller's transaction does. A session is found only while it
has not expired and, when opened with an API key, its key is an active admin key
(a session opened through the identity provider names a person's email instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def add_session(
    session: AsyncSession,
    id_hash: str,
    csrf: str,
    key_id: int | None,
    expires_at: datetime,
    email: str | None = None,
) -> None:
    """Store a signed-in browser's session (its id's hash only): an API key's, or
    (`key_id` None) a person's signed in through the identity provider, by email."""
    await session.execute(
        text(
            "INSERT INTO admin_sessions (id_hash, csrf, key_id, email, expires_at)"
            " VALUES (:h, :csrf, :key, :email, :until)"
        ),
        {"h": id_hash, "csrf": csrf, "key": key_id, "email": email, "until": expires_at},
    )


async def find_session(session: AsyncSession, id_hash: str) -> dict[str, Any] | None:
    """The live session with this hash and its key's row, or its person's email (None:
    expired, key revoked, unknown)."""
    row = await session.execute(
        text(
            "SELECT s.csrf, s.expires_at, s.email, k.id AS key_id, k.name, k.collections,"
            " k.rate_limit"
            " FROM admin_sessions s LEFT JOIN api_keys k ON k.id = s.key_id"
            " WHERE s.id_hash = :h AND s.expires_at > now()"
            " AND (s.email IS NOT NULL OR (k.revoked_at IS NULL AND k.admin))"
        ),
        {"h": id_hash},
    )
    found = row.first()
    return None if found is None else dict(found._mapping)


async def delete_session(session: AsyncSession, id_hash: str) -> bool:
    """Delete a session; False when there was none."""
    result = await session.execute(
        text("DELETE FROM admin_sessions WHERE id_hash = :h"), {"h": id_hash}
    )
    return bool(getattr(result, "rowcount", 0))


async def purge_sessions(session: AsyncSession) -> None:
    """Delete the expired sessions (each sign-in does: no table growing forever)."""
    await session.execute(text("DELETE FROM admin_sessions WHERE expires_at <= now()"))


async def lock_answers(session: AsyncSession, collection: str) -> None:
    """Hold the collection's console answers until the transaction ends: two answers
    published at once each rebuild the document with the other's entry."""
    await session.execute(
        text("SELECT pg_advisory_xact_lock(hashtext('console_answers:' || :c))"),
        {"c": collection},
    )


async def add_answer(
    session: AsyncSession, collection: str, question: str, answer: str, by: str
) -> int:
    """Keep an answer written in the console; its id."""
    row = await session.execute(
        text(
            "INSERT INTO console_answers (collection, question, answer, written_by)"
            " VALUES (:c, :q, :a, :by) RETURNING id"
        ),
        {"c": collection, "q": question, "a": answer, "by": by},
    )
    return int(row.scalar_one())


async def answers_of(session: AsyncSession, collection: str) -> list[dict[str, Any]]:
    """The console's answers for `collection` not withdrawn, oldest first."""
    rows = await session.execute(
        text(
            "SELECT id, question, answer FROM console_answers"
            " WHERE collection = :c AND withdrawn_at IS NULL ORDER BY id"
        ),
        {"c": collection},
    )
    return [dict(r._mapping) for r in rows]


async def published_answers(
    session: AsyncSession, collections: Sequence[str]
) -> list[dict[str, Any]]:
    """The answers in force in `collections`, newest first, with who wrote them and when."""
    rows = await session.execute(
        text(
            "SELECT id, collection, question, answer, written_by, created_at"
            " FROM console_answers WHERE withdrawn_at IS NULL"
            " AND collection = ANY(CAST(:cs AS text[])) ORDER BY id DESC"
        ),
        {"cs": list(collections)},
    )
    return [dict(r._mapping) for r in rows]


async def answer_collection(session: AsyncSession, answer_id: int) -> str | None:
    """The collection of an answer in force (None: unknown or withdrawn)."""
    row = await session.execute(
        text("SELECT collection FROM console_answers WHERE id = :i AND withdrawn_at IS NULL"),
        {"i": answer_id},
    )
    found = row.scalar_one_or_none()
    return None if found is None else str(found)


async def withdraw_answers(
    session: AsyncSession, collection: str, by: str, answer_id: int | None = None
) -> int:
    """Withdraw one answer of `collection` (or, `answer_id` None, every one in force): kept
    for the record, never rebuilt into the FAQ document again. How many were withdrawn."""
    result = await session.execute(
        text(
            "UPDATE console_answers SET withdrawn_at = now(), withdrawn_by = :by"
            " WHERE collection = :c AND withdrawn_at IS NULL"
            " AND (CAST(:i AS bigint) IS NULL OR id = CAST(:i AS bigint))"
        ),
        {"c": collection, "by": by, "i": answer_id},
    )
    return int(getattr(result, "rowcount", 0) or 0)


async def citation_counts(session: AsyncSession) -> dict[str, int]:
    """How many answers cited each document (by title)."""
    rows = await session.execute(
        text(
            "SELECT c ->> 'document' AS title, count(*) AS n FROM messages m,"
            " jsonb_array_elements(CASE WHEN jsonb_typeof(m.citations) = 'array'"
            " THEN m.citations ELSE '[]'::jsonb END) c"
            " WHERE m.role = 'assistant' GROUP BY 1"
        )
    )
    return {str(r.title): int(r.n) for r in rows}


async def recent_votes(session: AsyncSession, limit: int) -> list[dict[str, Any]]:
    """The newest votes with their answer, question, sources and decision path."""
    rows = await session.execute(
        text(
            "SELECT f.id, f.rating, f.platform, f.updated_at AS at, a.content AS answer,"
            " a.language, a.citations, a.details -> 'decision_path' AS path,"
            " (SELECT q.content FROM messages q WHERE q.trace_id = a.trace_id"
            "  AND q.role = 'user' ORDER BY q.id LIMIT 1) AS question"
            " FROM feedback f JOIN messages a ON a.id = f.message_id"
            " ORDER BY f.updated_at DESC, f.id DESC LIMIT :limit"
        ),
        {"limit": limit},
    )
    return [dict(r._mapping) for r in rows]


async def daily_turns(session: AsyncSession, since: datetime) -> list[dict[str, Any]]:
    """Per UTC day since `since`: turns, refusals, and votes up and down."""
    rows = await session.execute(
        text(
            "SELECT d::date AS day,"
            " (SELECT count(*) FROM messages q WHERE q.role = 'user'"
            "  AND q.created_at >= d AND q.created_at < d + interval '1 day') AS turns,"
            " (SELECT count(*) FROM messages a WHERE a.role = 'assistant'"
            "  AND a.created_at >= d AND a.created_at < d + interval '1 day'"
            "  AND (a.details -> 'trace' ->> 'is_out_of_scope')::boolean) AS refusals,"
            " (SELECT count(*) FROM feedback f WHERE f.rating > 0"
            "  AND f.updated_at >= d AND f.updated_at < d + interval '1 day') AS helpful,"
            " (SELECT count(*) FROM feedback f WHERE f.rating < 0"
            "  AND f.updated_at >= d AND f.updated_at < d + interval '1 day') AS unhelpful"
            " FROM generate_series(date_trunc('day', CAST(:since AS timestamptz)),"
            " date_trunc('day', now()), interval '1 day') d ORDER BY d"
        ),
        {"since": since},
    )
    return [dict(r._mapping) for r in rows]


async def collections_in_use(session: AsyncSession) -> set[str]:
    """Every collection a document is in or an active API key reads."""
    rows = await session.execute(
        text(
            "SELECT DISTINCT collection FROM documents"
            " UNION SELECT DISTINCT unnest(collections) FROM api_keys WHERE revoked_at IS NULL"
        )
    )
    return {str(r[0]) for r in rows if r[0]}
