"""Open questions (refused turns, hand-off cases) and their re-asks (never commits)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

REASK_PLATFORM = "gap_reask"  # the re-asked turns' conversations: never gaps themselves

# a turn the rules saw ask to make something (a poem) or to reach a person: no document
# is missing for it (a turn the model's planner called out of scope stays a gap: the model
# may be wrong)
NO_DOCUMENT_ASKED = (
    "(coalesce({0}.details -> 'trace' ->> 'intent', '') = 'out_of_scope'"
    " AND coalesce({0}.details -> 'trace' ->> 'plan_source', '') = 'rules')"
)
# a refused turn the documents could have answered
REFUSED_GAP = "(a.details -> 'trace' ->> 'is_out_of_scope')::boolean AND NOT " + (
    NO_DOCUMENT_ASKED.format("a")
)
# a hand-off case not opened from such a turn ({0}: its answer message, if any)
CASE_GAP = "NOT coalesce(" + NO_DOCUMENT_ASKED + ", false)"
# a refused turn or a case whose question a later re-ask answered is no longer open
ANSWERED_TURN = "EXISTS (SELECT 1 FROM gap_reasks g WHERE g.trace_id = {} AND g.answered)"
ANSWERED_CASE = "EXISTS (SELECT 1 FROM gap_reasks g WHERE g.case_id = {} AND g.answered)"


async def open_questions(
    session: AsyncSession, since: datetime, limit: int
) -> list[dict[str, Any]]:
    """The refused turns and hand-off cases since `since` not answered by a re-ask yet,
    newest first: what to ask again, as whom (platform, conversation, asker), the
    refused answer's details (the collections its turn could read) and what offering
    the asker a new answer needs (answer_id, conversation_id, person, answer)."""
    rows = await session.execute(
        text(
            "SELECT a.trace_id, NULL::bigint AS case_id, c.platform, c.external_id AS"
            " conversation, q.details->>'user' AS asker, q.content AS question,"
            " coalesce(a.language, q.language) AS language, a.details, a.created_at AS at,"
            " a.id AS answer_id, c.id AS conversation_id, c.user_id AS person, a.content AS answer"
            " FROM messages a JOIN messages q ON q.trace_id = a.trace_id AND q.role = 'user'"
            " JOIN conversations c ON c.id = a.conversation_id"
            " WHERE a.role = 'assistant' AND a.created_at >= :since AND NOT q.blocked"
            f" AND c.platform <> :reask AND {REFUSED_GAP}"
            " AND NOT EXISTS (SELECT 1 FROM handoff_cases h WHERE h.answer_message_id = a.id)"
            f" AND NOT {ANSWERED_TURN.format('a.trace_id')}"
            " UNION ALL"
            " SELECT m.trace_id, h.id, h.platform, h.conversation_key, h.asker, h.question,"
            " h.language, m.details, h.created_at, m.id, mc.id, mc.user_id, m.content"
            " FROM handoff_cases h LEFT JOIN messages m ON m.id = h.answer_message_id"
            " LEFT JOIN conversations mc ON mc.id = m.conversation_id"
            f" WHERE h.created_at >= :since AND NOT {ANSWERED_CASE.format('h.id')}"
            f" AND {CASE_GAP.format('m')}"
            " ORDER BY at DESC LIMIT :limit"
        ),
        {"since": since, "reask": REASK_PLATFORM, "limit": limit},
    )
    return [dict(r._mapping) for r in rows]


async def titles_of(session: AsyncSession, source_id: int, keys: Sequence[str]) -> list[str]:
    """The titles of the documents a source's items `keys` made."""
    rows = await session.execute(
        text(
            "SELECT d.title FROM source_items i JOIN documents d ON d.id = i.document_id"
            " WHERE i.source_id = :source AND i.key = ANY(:keys)"
        ),
        {"source": source_id, "keys": list(keys)},
    )
    return [str(r[0]) for r in rows]


async def record(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> None:
    """Store what each re-ask found (see the table's migration for the fields)."""
    for row in rows:
        await session.execute(
            text(
                "INSERT INTO gap_reasks (trace_id, case_id, platform, conversation, asker,"
                " question, language, answered, answer_trace_id, answer_message_id,"
                " upload_id, source_id) VALUES (:trace_id, :case_id, :platform, :conversation,"
                " :asker, :question, :language, :answered, :answer_trace_id,"
                " :answer_message_id, :upload_id, :source_id)"
            ),
            row,
        )


async def note_on_sync(session: AsyncSession, source_id: int, gaps: dict[str, Any]) -> None:
    """Add a re-ask's counts to the source's last result (the sync that asked for it)."""
    await session.execute(
        text(
            "UPDATE sources SET last_result = coalesce(last_result, '{}'::jsonb)"
            " || jsonb_build_object('gaps', CAST(:gaps AS jsonb)) WHERE id = :id"
        ),
        {"id": source_id, "gaps": json.dumps(gaps)},
    )


async def collections_of(session: AsyncSession, titles: Sequence[str]) -> list[str]:
    """The collections the documents `titles` are in."""
    rows = await session.execute(
        text("SELECT DISTINCT collection FROM documents WHERE title = ANY(:t) ORDER BY 1"),
        {"t": list(titles)},
    )
    return [str(r[0]) for r in rows]
