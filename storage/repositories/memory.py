"""answer_memory rows: find by key, remember, vote, list, forget (the caller commits)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

# a form's identity for staleness: its link, its file name and the file's bytes
FORM_SIGNATURE = (
    "md5(coalesce(f.url, '') || '|' || coalesce(f.file_name, '') || '|'"
    " || coalesce(md5(f.file_data), ''))"
)
# an entry is served only while every document and form it rests on is unchanged
_VALID = (
    "m.confirmed_at > now() - make_interval(days => :ttl) AND m.embedding_model = :model"
    " AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(m.sources) s WHERE NOT EXISTS"
    " (SELECT 1 FROM documents d WHERE d.title = s->>'title' AND d.content_hash = s->>'hash'))"
    " AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(m.form_sources) s WHERE NOT EXISTS"
    f" (SELECT 1 FROM forms f WHERE f.name = s->>'name' AND {FORM_SIGNATURE} = s->>'signature'))"
)


async def candidates(
    session: AsyncSession,
    key: str,
    collections: Sequence[str] | None,
    ttl_days: int,
    model: str,
) -> list[tuple[int, bool]]:
    """(id, still valid) of the entries under `key` the asker may read."""
    readable = "" if collections is None else " AND m.collections <@ CAST(:allowed AS text[])"
    rows = await session.execute(
        text(
            f"SELECT m.id, ({_VALID}) FROM answer_memory m WHERE m.question_key = :key{readable}"
            " ORDER BY m.helpful DESC, m.confirmed_at DESC"
        ),
        {"key": key, "ttl": ttl_days, "model": model, "allowed": list(collections or [])},
    )
    return [(int(r[0]), bool(r[1])) for r in rows]


async def closest(session: AsyncSession, ids: list[int], vector: str) -> dict[str, Any] | None:
    """The entry among `ids` nearest to `vector`, with its cosine similarity."""
    row = (
        await session.execute(
            text(
                "SELECT id, answer, language, citations, forms,"
                " 1 - (embedding <=> CAST(:vec AS vector)) AS similarity FROM answer_memory"
                " WHERE id = ANY(:ids) ORDER BY embedding <=> CAST(:vec AS vector), id LIMIT 1"
            ),
            {"ids": ids, "vec": vector},
        )
    ).first()
    return None if row is None else dict(row._mapping)


async def mark_hit(session: AsyncSession, entry_id: int) -> None:
    """Count one more answer served from the entry."""
    await session.execute(
        text("UPDATE answer_memory SET hits = hits + 1, last_hit_at = now() WHERE id = :id"),
        {"id": entry_id},
    )


async def drop(session: AsyncSession, ids: Sequence[int]) -> int:
    """Delete these entries; how many there were."""
    result = await session.execute(
        text("DELETE FROM answer_memory WHERE id = ANY(:ids)"), {"ids": list(ids)}
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def remember(session: AsyncSession, entry: dict[str, Any]) -> int | None:
    """Store (or refresh) an entry; None when a cited document or form is gone.

    `entry`: question_key, question, language, answer, citations, forms,
    embedding (a vector literal), embedding_model, source_trace_id.
    """
    titles = sorted({c["document"] for c in entry["citations"]})
    names = sorted({f["name"] for f in entry["forms"]})
    docs = (
        await session.execute(
            text("SELECT title, content_hash, collection FROM documents WHERE title = ANY(:t)"),
            {"t": titles},
        )
    ).all()
    forms = (
        await session.execute(
            text(
                f"SELECT f.name, {FORM_SIGNATURE}, f.collection FROM forms f WHERE f.name = ANY(:n)"
            ),
            {"n": names},
        )
    ).all()
    if len(docs) != len(titles) or len(forms) != len(names):
        return None  # deleted while the turn ran: nothing safe to remember
    collections = sorted({r[2] for r in docs} | {r[2] for r in forms})
    row = await session.execute(
        text(
            "INSERT INTO answer_memory (question_key, scope, question, language, answer,"
            " citations, forms, sources, form_sources, collections, embedding_model,"
            " source_trace_id, embedding) VALUES (:key, :scope, :question, :language, :answer,"
            " CAST(:citations AS jsonb), CAST(:forms AS jsonb), CAST(:sources AS jsonb),"
            " CAST(:form_sources AS jsonb), CAST(:collections AS text[]), :model, :trace,"
            " CAST(:vec AS vector)) ON CONFLICT ON CONSTRAINT uq_answer_memory_key_scope DO UPDATE"
            " SET question = excluded.question, language = excluded.language,"
            " answer = excluded.answer, citations = excluded.citations, forms = excluded.forms,"
            " sources = excluded.sources, form_sources = excluded.form_sources,"
            " embedding_model = excluded.embedding_model, embedding = excluded.embedding,"
            " source_trace_id = excluded.source_trace_id, hits = 0, helpful = 0,"
            " created_at = now(), confirmed_at = now(), last_hit_at = NULL RETURNING id"
        ),
        {
            "key": entry["question_key"],
            "scope": ",".join(collections),
            "question": entry["question"],
            "language": entry["language"],
            "answer": entry["answer"],
            "citations": json.dumps(entry["citations"], ensure_ascii=False),
            "forms": json.dumps(entry["forms"], ensure_ascii=False),
            "sources": json.dumps([{"title": r[0], "hash": r[1]} for r in docs]),
            "form_sources": json.dumps([{"name": r[0], "signature": r[1]} for r in forms]),
            "collections": collections,
            "model": entry["embedding_model"],
            "trace": entry.get("source_trace_id"),
            "vec": entry["embedding"],
        },
    )
    return int(row.scalar_one())


async def vote(session: AsyncSession, message_id: int, trace_id: str | None, helpful: bool) -> int:
    """Apply a vote on an answer to the entry it came from or went into; entries touched.

    Unhelpful removes the entry; helpful counts and restarts its TTL.
    """
    match = (
        "(source_trace_id = :trace OR id = (SELECT (details->'trace'->>'memory_id')::bigint"
        " FROM messages WHERE id = :mid))"
    )
    statement = (
        f"UPDATE answer_memory SET helpful = helpful + 1, confirmed_at = now() WHERE {match}"
        if helpful
        else f"DELETE FROM answer_memory WHERE {match}"
    )
    result = await session.execute(text(statement), {"trace": trace_id, "mid": message_id})
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def entries(session: AsyncSession, ttl_days: int, model: str, limit: int) -> list[dict]:
    """The newest entries first, each with whether it would still be served."""
    rows = await session.execute(
        text(
            "SELECT m.id, m.question, m.language, m.hits, m.helpful, m.collections,"
            " m.created_at, m.last_hit_at, m.citations, m.forms,"
            f" ({_VALID}) AS valid FROM answer_memory m ORDER BY m.id DESC LIMIT :limit"
        ),
        {"ttl": ttl_days, "model": model, "limit": limit},
    )
    return [dict(r._mapping) for r in rows]


async def forget(session: AsyncSession, entry_id: int | None) -> int:
    """Delete one entry, or every entry (None); how many were deleted."""
    if entry_id is None:
        result = await session.execute(text("DELETE FROM answer_memory"))
    else:
        result = await session.execute(
            text("DELETE FROM answer_memory WHERE id = :id"), {"id": entry_id}
        )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
