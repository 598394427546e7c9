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
# an entry is served only while every document and form it rests on is unchanged: each
# cited document still the very row the turn read (a re-upload, a sync's new version, a
# removal or a move to another collection makes a new row or none); entries stored before
# the row id was kept are checked by title and content hash
_VALID = (
    "m.confirmed_at > now() - make_interval(days => :ttl) AND m.embedding_model = :model"
    " AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(m.sources) s WHERE NOT EXISTS"
    " (SELECT 1 FROM documents d WHERE d.title = s->>'title' AND d.content_hash = s->>'hash'"
    " AND (s->>'id' IS NULL OR d.id = CAST(s->>'id' AS bigint))))"
    " AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(m.form_sources) s WHERE NOT EXISTS"
    f" (SELECT 1 FROM forms f WHERE f.name = s->>'name' AND {FORM_SIGNATURE} = s->>'signature'))"
)


# an entry the asker voted unhelpful is never served to them again
_NOT_REJECTED = (
    " AND NOT EXISTS (SELECT 1 FROM answer_memory_votes v WHERE v.entry_id = m.id"
    " AND v.voter = :voter AND NOT v.helpful)"
)


# every document and form the entry rests on is, now, in a collection the asker reads
# (a form or document moved to `internal` after the entry was stored is not offered)
_READABLE_NOW = (
    " AND m.collections <@ CAST(:allowed AS text[])"
    " AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(m.sources) s JOIN documents d"
    " ON d.title = s->>'title' WHERE d.collection <> ALL(CAST(:allowed AS text[])))"
    " AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(m.form_sources) s JOIN forms f"
    " ON f.name = s->>'name' WHERE f.collection <> ALL(CAST(:allowed AS text[])))"
)


def _scope(collections: Sequence[str] | None, platform: str | None) -> str:
    """SQL conditions: only entries `collections` may read, first asked on `platform`."""
    readable = "" if collections is None else _READABLE_NOW
    asked_here = "" if platform is None else " AND m.origin_platform = :platform"
    return readable + asked_here


async def candidates(
    session: AsyncSession,
    key: str,
    collections: Sequence[str] | None,
    ttl_days: int,
    model: str,
    voter: str | None = None,
) -> list[tuple[int, bool]]:
    """(id, still valid) of the entries under `key` the asker may read and did not reject."""
    where = _scope(collections, None) + (_NOT_REJECTED if voter else "")
    rows = await session.execute(
        text(
            f"SELECT m.id, ({_VALID}) FROM answer_memory m WHERE m.question_key = :key{where}"
            " ORDER BY m.helpful DESC, m.confirmed_at DESC"
        ),
        {
            "key": key,
            "ttl": ttl_days,
            "model": model,
            "allowed": list(collections or []),
            "voter": voter,
        },
    )
    return [(int(r[0]), bool(r[1])) for r in rows]


async def closest(
    session: AsyncSession, ids: list[int], vector: str, ttl_days: int, model: str
) -> dict[str, Any] | None:
    """The still valid entry among `ids` nearest to `vector`, with its cosine similarity.

    Validity is checked again here, in the statement that reads the answer: a document
    replaced since `candidates` looked must not have its old answer served.
    """
    row = (
        await session.execute(
            text(
                "SELECT m.id, m.answer, m.language, m.citations, m.forms,"
                " 1 - (m.embedding <=> CAST(:vec AS vector)) AS similarity FROM answer_memory m"
                f" WHERE m.id = ANY(:ids) AND {_VALID}"
                " ORDER BY m.embedding <=> CAST(:vec AS vector), m.id LIMIT 1"
            ),
            {"ids": ids, "vec": vector, "ttl": ttl_days, "model": model},
        )
    ).first()
    return None if row is None else dict(row._mapping)


async def mark_hit(session: AsyncSession, entry_id: int, asker: str | None = None) -> None:
    """Count one more answer served from the entry (and its asker, once)."""
    await session.execute(
        text("UPDATE answer_memory SET hits = hits + 1, last_hit_at = now() WHERE id = :id"),
        {"id": entry_id},
    )
    if asker:
        await session.execute(
            text(
                "INSERT INTO answer_memory_askers (entry_id, asker) VALUES (:id, :asker)"
                " ON CONFLICT DO NOTHING"
            ),
            {"id": entry_id, "asker": asker},
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
    docs = await _versions_read(session, titles, entry.get("read"))
    forms = (
        await session.execute(
            text(
                f"SELECT f.name, {FORM_SIGNATURE}, f.collection, f.url FROM forms f"
                " WHERE f.name = ANY(:n)"
            ),
            {"n": names},
        )
    ).all()
    if len(docs) != len(titles) or len(forms) != len(names):
        return None  # deleted or replaced while the turn ran: nothing safe to remember
    shown = {f["name"]: f["url"] for f in entry["forms"] if "url" in f}
    if any(r[0] in shown and shown[r[0]] != r[3] for r in forms):
        return None  # the form's link changed while the turn ran: the answer shows the old one
    collections = sorted({r[2] for r in docs} | {r[2] for r in forms})
    # the platform the question was asked on: its turn is stored in this transaction
    origin = (
        "(SELECT c.platform FROM messages msg JOIN conversations c ON c.id = msg.conversation_id"
        " WHERE msg.trace_id = :trace LIMIT 1)"
    )
    before = await session.scalar(
        text("SELECT answer FROM answer_memory WHERE question_key = :key AND scope = :scope"),
        {"key": entry["question_key"], "scope": ",".join(collections)},
    )
    row = await session.execute(
        text(
            "INSERT INTO answer_memory (question_key, scope, question, language, answer,"
            " citations, forms, sources, form_sources, collections, embedding_model,"
            " source_trace_id, embedding, origin_platform) VALUES (:key, :scope, :question,"
            " :language, :answer, CAST(:citations AS jsonb), CAST(:forms AS jsonb),"
            " CAST(:sources AS jsonb), CAST(:form_sources AS jsonb),"
            f" CAST(:collections AS text[]), :model, :trace, CAST(:vec AS vector), {origin})"
            " ON CONFLICT ON CONSTRAINT uq_answer_memory_key_scope DO UPDATE"
            " SET question = excluded.question, language = excluded.language,"
            " answer = excluded.answer, citations = excluded.citations, forms = excluded.forms,"
            " sources = excluded.sources, form_sources = excluded.form_sources,"
            " embedding_model = excluded.embedding_model, embedding = excluded.embedding,"
            " source_trace_id = excluded.source_trace_id,"
            " origin_platform = excluded.origin_platform, hits = 0,"
            " helpful = CASE WHEN answer_memory.answer = excluded.answer"
            " THEN answer_memory.helpful ELSE 0 END,"
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
            "sources": json.dumps([{"title": r[0], "hash": r[1], "id": r[3]} for r in docs]),
            "form_sources": json.dumps([{"name": r[0], "signature": r[1]} for r in forms]),
            "collections": collections,
            "model": entry["embedding_model"],
            "trace": entry.get("source_trace_id"),
            "vec": entry["embedding"],
        },
    )
    entry_id = int(row.scalar_one())
    # the asker whose turn made it (their pseudonym, stored with the question this transaction)
    await session.execute(
        text(
            "INSERT INTO answer_memory_askers (entry_id, asker) SELECT :id, msg.details->>'user'"
            " FROM messages msg WHERE msg.trace_id = :trace AND msg.role = 'user'"
            " AND msg.details->>'user' IS NOT NULL ON CONFLICT DO NOTHING"
        ),
        {"id": entry_id, "trace": entry.get("source_trace_id")},
    )
    if before is not None and before != entry["answer"]:
        # a new answer under an old key starts with no votes: the old ones judged another
        # text (the same text keeps them: whoever rejected it is still not served it)
        await session.execute(
            text("DELETE FROM answer_memory_votes WHERE entry_id = :id"), {"id": entry_id}
        )
    return entry_id


async def _versions_read(
    session: AsyncSession, titles: list[str], read: Sequence[int] | None
) -> list[Any]:
    """(title, content hash, collection, row id) of each cited document as the turn read it.

    With `read` (the chunk ids the turn's evidence came from), the versions those chunks
    belong to: a document replaced since has none left, so it is missing here and the
    entry is not stored (its current hash is not what the answer was written from).
    Without (an older caller), the documents as they are now.
    """
    if read is None:
        query = "SELECT title, content_hash, collection, id FROM documents WHERE title = ANY(:t)"
        return list((await session.execute(text(query), {"t": titles})).all())
    query = (
        "SELECT DISTINCT d.title, d.content_hash, d.collection, d.id FROM chunks c"
        " JOIN documents d ON d.id = c.document_id WHERE c.id = ANY(:ids) AND d.title = ANY(:t)"
    )
    return list((await session.execute(text(query), {"ids": list(read), "t": titles})).all())


async def vote(
    session: AsyncSession, message_id: int, trace_id: str | None, voter: str, helpful: bool
) -> int:
    """Apply `voter`'s vote on an answer to the entry it came from or went into; entries touched.

    One vote per voter per entry (a changed vote replaces it), so `helpful` counts
    distinct people. A helpful vote restarts the entry's TTL; an unhelpful one stops
    it being served to that voter, and deletes it for everyone once the distinct
    unhelpful votes outnumber the helpful ones.
    """
    found = await session.execute(
        text(
            "SELECT id FROM answer_memory WHERE source_trace_id = :trace OR id ="
            " (SELECT (details->'trace'->>'memory_id')::bigint FROM messages WHERE id = :mid)"
            " FOR UPDATE"
        ),
        {"trace": trace_id, "mid": message_id},
    )
    ids = [int(r[0]) for r in found]
    for entry_id in ids:
        await session.execute(
            text(
                "INSERT INTO answer_memory_votes (entry_id, voter, helpful)"
                " VALUES (:id, :voter, :helpful) ON CONFLICT (entry_id, voter)"
                " DO UPDATE SET helpful = excluded.helpful, updated_at = now()"
            ),
            {"id": entry_id, "voter": voter, "helpful": helpful},
        )
        counted = "(SELECT count(*) FROM answer_memory_votes v WHERE v.entry_id = m.id AND {})"
        restart = ", confirmed_at = now()" if helpful else ""
        await session.execute(
            text(
                f"UPDATE answer_memory m SET helpful = {counted.format('v.helpful')}{restart}"
                " WHERE m.id = :id"
            ),
            {"id": entry_id},
        )
        await session.execute(
            text(
                f"DELETE FROM answer_memory m WHERE m.id = :id"
                f" AND {counted.format('NOT v.helpful')} > m.helpful"
            ),
            {"id": entry_id},
        )
    return len(ids)


async def entries(
    session: AsyncSession,
    ttl_days: int,
    model: str,
    limit: int,
    collections: Sequence[str] | None = None,
    platform: str | None = None,
) -> list[dict]:
    """The newest entries first, each with whether it would still be served.

    With `collections` / `platform`: only entries citing nothing outside those
    collections and first asked on that platform (an admin's view of their audience).
    """
    rows = await session.execute(
        text(
            "SELECT m.id, m.question, m.language, m.hits, m.helpful, m.collections,"
            " m.created_at, m.last_hit_at, m.citations, m.forms, m.origin_platform,"
            f" ({_VALID}) AS valid FROM answer_memory m WHERE true"
            f"{_scope(collections, platform)} ORDER BY m.id DESC LIMIT :limit"
        ),
        {
            "ttl": ttl_days,
            "model": model,
            "limit": limit,
            "allowed": list(collections or []),
            "platform": platform,
        },
    )
    return [dict(r._mapping) for r in rows]


async def most_asked(
    session: AsyncSession,
    ttl_days: int,
    model: str,
    language: str,
    scope: tuple[Sequence[str] | None, str | None],
    min_askers: int,
    limit: int,
) -> list[str]:
    """The questions most people asked in `language`, among the entries the scope's
    collections may read that were first asked on its platform.

    Only entries at least `min_askers` different people asked (one person
    repeating a question never makes it a suggestion), not voted down on
    balance, and still valid.
    """
    collections, platform = scope
    rows = await session.execute(
        text(
            "SELECT m.question FROM answer_memory m JOIN LATERAL (SELECT count(*) AS n"
            " FROM answer_memory_askers a WHERE a.entry_id = m.id) askers ON true"
            " WHERE m.language = :language AND askers.n >= :min_askers AND m.helpful >= 0"
            f" AND {_VALID}{_scope(collections, platform)}"
            " ORDER BY askers.n DESC, m.hits DESC, m.id DESC LIMIT :limit"
        ),
        {
            "ttl": ttl_days,
            "model": model,
            "language": language,
            "allowed": list(collections or []),
            "platform": platform,
            "min_askers": min_askers,
            "limit": limit,
        },
    )
    return [str(r[0]) for r in rows]


async def forget(
    session: AsyncSession,
    entry_id: int | None,
    collections: Sequence[str] | None = None,
    platform: str | None = None,
) -> int:
    """Delete one entry, or every entry (None), within the same scope as `entries`."""
    which = "" if entry_id is None else " AND m.id = :id"
    result = await session.execute(
        text(f"DELETE FROM answer_memory m WHERE true{which}{_scope(collections, platform)}"),
        {"id": entry_id, "allowed": list(collections or []), "platform": platform},
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
