"""Turn records for `ragbot traces` and `ragbot stats` (read-only queries, never commits).

A turn is the asker's message and, when the turn finished, the answer with the
same trace id; the answer's `details` hold decision path, timings, LLM calls and
the telemetry summary the graph assembled.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

_TURNS = """
SELECT q.trace_id, q.created_at AS at, c.platform, c.external_id AS conversation,
       q.content AS question, q.blocked, q.details AS question_details,
       a.content AS answer, a.intent, coalesce(a.language, q.language) AS language,
       a.citations, a.details AS answer_details,
       (SELECT string_agg(o.last_error, '; ' ORDER BY o.id) FROM outbox o
        WHERE o.trace_id = q.trace_id AND o.status = 'failed') AS undelivered
FROM messages q
JOIN conversations c ON c.id = q.conversation_id
LEFT JOIN messages a ON a.trace_id = q.trace_id AND a.role = 'assistant'
WHERE q.role = 'user' {where}
ORDER BY q.id DESC
LIMIT :limit
"""


async def recent_turns(
    session: AsyncSession, limit: int = 20, trace_id: str | None = None
) -> list[dict[str, Any]]:
    """The newest turns first (or the one with `trace_id`)."""
    where = "AND q.trace_id = :trace_id" if trace_id else ""
    rows = await session.execute(
        text(_TURNS.format(where=where)), {"limit": limit, "trace_id": trace_id}
    )
    return [_turn(row._mapping) for row in rows]


def _turn(row: Any) -> dict[str, Any]:
    asked = row["question_details"] or {}
    answered = row["answer_details"] or {}
    trace = answered.get("trace") or {}
    return {
        "trace_id": row["trace_id"],
        "at": row["at"].isoformat(timespec="seconds"),
        "platform": row["platform"],
        "conversation": row["conversation"],
        "question": row["question"],
        "answer": row["answer"],
        "intent": row["intent"],
        "language": row["language"],
        "decision_path": answered.get("decision_path") or asked.get("decision_path") or [],
        "timings_ms": answered.get("timings_ms") or {},
        "llm_calls": answered.get("llm_calls", 0),
        "retrieval_loops": trace.get("retrieval_loops", 0),
        "citations": len(row["citations"] or []),
        "refused": bool(trace.get("is_out_of_scope")),
        "blocked": bool(row["blocked"]) and row["answer"] is not None,
        "guard_reason": trace.get("guard_reason"),
        "error": asked.get("error"),
        # the reply could not be delivered (the outbox gave up): why
        "delivery_failed": row["undelivered"],
    }


_PERIOD = (
    "q.role = 'user' AND q.created_at >= :since AND (CAST(:platform AS text) IS NULL"
    " OR q.conversation_id IN (SELECT id FROM conversations WHERE platform = :platform))"
)
_SUMMARY = f"""
SELECT count(*) AS turns,
       count(DISTINCT q.conversation_id) AS conversations,
       count(DISTINCT q.details ->> 'user') AS users,
       count(*) FILTER (WHERE q.blocked AND a.id IS NOT NULL) AS blocked,
       count(*) FILTER (WHERE a.id IS NULL) AS unfinished,
       count(*) FILTER (WHERE (a.details -> 'trace' ->> 'is_out_of_scope')::boolean
                        AND NOT q.blocked) AS refusals,
       count(*) FILTER (WHERE a.details -> 'trace' ->> 'outcome' = 'memory') AS memory_hits,
       coalesce(sum((a.details ->> 'llm_calls')::int), 0) AS llm_calls,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY (a.details -> 'timings_ms' ->> 'total')::float)
           AS p50,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY (a.details -> 'timings_ms' ->> 'total')::float)
           AS p95,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY (a.details -> 'timings_ms' ->> 'total')::float)
           AS p99,
       max((a.details -> 'timings_ms' ->> 'total')::float) AS max
FROM messages q
LEFT JOIN messages a ON a.trace_id = q.trace_id AND a.role = 'assistant'
WHERE {_PERIOD}
"""
_BREAKDOWN = f"""
SELECT {{column}} AS key, count(*) AS n
FROM messages q
JOIN conversations c ON c.id = q.conversation_id
LEFT JOIN messages a ON a.trace_id = q.trace_id AND a.role = 'assistant'
WHERE {_PERIOD}
GROUP BY 1 ORDER BY 2 DESC
"""
_BREAKDOWNS = {
    "platforms": "c.platform",
    "intents": "coalesce(a.intent, CASE WHEN a.id IS NULL THEN 'unfinished' END)",
    "languages": "coalesce(a.language, q.language)",
}
_FEEDBACK = """
SELECT count(*) FILTER (WHERE rating > 0), count(*) FILTER (WHERE rating < 0)
FROM feedback WHERE updated_at >= :since
AND (CAST(:platform AS text) IS NULL OR platform = :platform)
"""


async def turn_summary(
    session: AsyncSession, since: datetime, platform: str | None = None
) -> dict[str, Any]:
    """Volumes, breakdowns, refusals, feedback and latency of the turns since `since`
    (of `platform` only, when given)."""
    params = {"since": since, "platform": platform}
    row = (await session.execute(text(_SUMMARY), params)).one()._mapping
    finished = row["turns"] - row["unfinished"]
    answered = finished - row["blocked"]
    out: dict[str, Any] = {
        "volumes": {
            "turns": row["turns"],
            "conversations": row["conversations"],
            "users": row["users"],
            "blocked": row["blocked"],
            "unfinished": row["unfinished"],
            "llm_calls": row["llm_calls"],
            "llm_calls_per_turn": round(row["llm_calls"] / finished, 3) if finished else 0.0,
        },
        "refusals": row["refusals"],
        # share of answered turns served from the answer memory
        "memory": {
            "hits": row["memory_hits"],
            "hit_rate": round(row["memory_hits"] / answered, 4) if answered else 0.0,
        },
        "refusal_rate": round(row["refusals"] / answered, 4) if answered else 0.0,
        "latency_ms": {
            key: round(row[key], 1) if row[key] is not None else None
            for key in ("p50", "p95", "p99", "max")
        },
    }
    for name, column in _BREAKDOWNS.items():
        rows = await session.execute(text(_BREAKDOWN.format(column=column)), params)
        out[name] = {str(r.key): r.n for r in rows}
    helpful, unhelpful = (await session.execute(text(_FEEDBACK), params)).one()
    votes = helpful + unhelpful
    out["feedback"] = {
        "helpful": helpful,
        "not_helpful": unhelpful,
        "helpful_rate": round(helpful / votes, 4) if votes else None,
    }
    return out


async def counts(
    session: AsyncSession, collections: Sequence[str] | None = None, platform: str | None = None
) -> dict[str, int]:
    """Sizes of the knowledge base and of the traffic, for `stats`.

    With `collections`: documents, passages and forms of those collections only;
    with `platform`: conversations, questions, votes and uploads of that platform.
    """
    if collections is None:
        docs = "documents"
        chunks = "(SELECT chunk_count FROM index_meta)"
        forms = "forms"
    else:
        docs = "documents WHERE collection = ANY(:allowed)"
        chunks = (
            "(SELECT count(*) FROM chunks k JOIN documents d ON d.id = k.document_id"
            " WHERE d.collection = ANY(:allowed))"
        )
        forms = "forms WHERE collection = ANY(:allowed)"
    here = "(CAST(:platform AS text) IS NULL OR platform = :platform)"
    row = (
        await session.execute(
            text(
                f"SELECT (SELECT count(*) FROM {docs}), {chunks}, (SELECT count(*) FROM {forms}),"
                f" (SELECT count(*) FROM conversations WHERE {here}),"
                " (SELECT count(*) FROM messages m JOIN conversations c"
                " ON c.id = m.conversation_id WHERE m.role = 'user'"
                " AND (CAST(:platform AS text) IS NULL OR c.platform = :platform)),"
                f" (SELECT count(*) FROM feedback WHERE rating > 0 AND {here}),"
                f" (SELECT count(*) FROM feedback WHERE rating < 0 AND {here}),"
                " (SELECT count(*) FROM uploads WHERE status IN ('queued', 'running')"
                f" AND {here})"
            ),
            {"allowed": list(collections or []), "platform": platform},
        )
    ).one()
    keys = (
        "documents",
        "chunks",
        "forms",
        "conversations",
        "questions",
        "helpful",
        "not_helpful",
        "uploads_pending",
    )
    return dict(zip(keys, (int(v) for v in row), strict=True))
