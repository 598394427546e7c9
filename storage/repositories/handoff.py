"""Hand-off cases, their staff-room posts and relayed messages (never commits).

A case is `open` until someone on the staff claims it (`claimed`) and
`closed` when staff or the asker hand the chat back to the bot. Each state
change is one conditional UPDATE, so two workers (or two staff members
pressing at once) change a case once.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

_CASE_COLUMNS = (
    "id, status, platform, conversation_key, asker, route, language, question, answer,"
    " outcome, passages, answer_message_id, claimed_by, claimed_at, first_reply_at,"
    " closed_by, closed_at, reminders, kb_upload_id, created_at"
)


def _case(row: Any) -> dict[str, Any] | None:
    return dict(row._mapping) if row is not None else None


async def answer_context(
    session: AsyncSession, message_id: int, platform: str, where: str
) -> dict[str, Any] | None:
    """The answer `message_id` with its question, when it was posted on `platform` in the
    conversation `where` (its key, or a key under it: see feedback.vote); else None."""
    row = (
        await session.execute(
            text(
                "SELECT a.id, a.content AS answer, a.language, a.citations,"
                " a.details -> 'trace' AS trace, c.external_id AS conversation_key,"
                " c.user_id AS owner,"
                " (SELECT q.content FROM messages q WHERE q.conversation_id = a.conversation_id"
                "  AND q.role = 'user' AND q.id < a.id ORDER BY q.id DESC LIMIT 1) AS question"
                " FROM messages a JOIN conversations c ON c.id = a.conversation_id"
                " WHERE a.id = :id AND a.role = 'assistant' AND c.platform = :platform"
                " AND (c.external_id = :where OR starts_with(c.external_id, :under))"
            ),
            {"id": message_id, "platform": platform, "where": where, "under": f"{where}:"},
        )
    ).first()
    if row is None or not where:
        return None
    return dict(row._mapping)


async def open_case(session: AsyncSession, values: dict[str, Any]) -> tuple[int, bool]:
    """(case id, True) for a new case; (the open one's id, False) when the conversation
    already has an open case."""
    params = {
        **values,
        "route": json.dumps(values.get("route") or {}),
        "passages": json.dumps(values.get("passages") or []),
    }
    new_id = await session.scalar(
        text(
            "INSERT INTO handoff_cases (platform, conversation_key, asker, route, language,"
            " question, answer, outcome, passages, answer_message_id)"
            " VALUES (:platform, :conversation_key, :asker, CAST(:route AS jsonb), :language,"
            " :question, :answer, :outcome, CAST(:passages AS jsonb), :answer_message_id)"
            " ON CONFLICT (platform, conversation_key) WHERE status <> 'closed' DO NOTHING"
            " RETURNING id"
        ),
        params,
    )
    if new_id is not None:
        return int(new_id), True
    found = await open_case_in(session, values["platform"], values["conversation_key"])
    assert found is not None  # the conflict was an open case of this conversation
    return int(found["id"]), False


async def get_case(
    session: AsyncSession, case_id: int, *, lock: bool = False
) -> dict[str, Any] | None:
    """One case, or None (`lock`: held until the caller's transaction ends, so a relay
    and a close of one case happen one after the other)."""
    row = (
        await session.execute(
            text(
                f"SELECT {_CASE_COLUMNS} FROM handoff_cases WHERE id = :id"
                + (" FOR UPDATE" if lock else "")
            ),
            {"id": case_id},
        )
    ).first()
    return _case(row)


async def cards_pending_or_posted(session: AsyncSession, case_id: int) -> bool:
    """True while some staff room has the case's card or may still get it."""
    found = await session.scalar(
        text(
            "SELECT 1 WHERE EXISTS (SELECT 1 FROM handoff_posts WHERE case_id = :id AND is_card)"
            " OR EXISTS (SELECT 1 FROM outbox WHERE key = ANY(:cards) AND status <> 'failed')"
        ),
        {"id": case_id, "cards": [f"handoff:{case_id}:card:{p}" for p in ("slack", "telegram")]},
    )
    return found is not None


async def open_case_in(
    session: AsyncSession, platform: str, conversation_key: str
) -> dict[str, Any] | None:
    """The case open (or claimed) in an asker's conversation, if any."""
    row = (
        await session.execute(
            text(
                f"SELECT {_CASE_COLUMNS} FROM handoff_cases WHERE platform = :platform"
                " AND conversation_key = :key AND status <> 'closed'"
            ),
            {"platform": platform, "key": conversation_key},
        )
    ).first()
    return _case(row)


async def open_case_in_chat(
    session: AsyncSession, platform: str, chat: str, asker: str
) -> dict[str, Any] | None:
    """The asker's open case in a one-to-one chat: a conversation `chat` or under it
    (`chat:…`: a Slack DM's threads, a Telegram private chat after /new)."""
    row = (
        await session.execute(
            text(
                f"SELECT {_CASE_COLUMNS} FROM handoff_cases WHERE platform = :platform"
                " AND asker = :asker AND status <> 'closed'"
                " AND (conversation_key = :chat OR starts_with(conversation_key, :under))"
                " ORDER BY id DESC LIMIT 1"
            ),
            {"platform": platform, "asker": asker, "chat": chat, "under": f"{chat}:"},
        )
    ).first()
    return _case(row)


async def case_of_post(session: AsyncSession, platform: str, ref: str) -> dict[str, Any] | None:
    """The case a staff-room message belongs to (`ref`: "chat:message")."""
    row = (
        await session.execute(
            text(
                f"SELECT {', '.join('c.' + c.strip() for c in _CASE_COLUMNS.split(','))}"
                " FROM handoff_posts p JOIN handoff_cases c ON c.id = p.case_id"
                " WHERE p.platform = :platform AND p.ref = :ref"
            ),
            {"platform": platform, "ref": ref},
        )
    ).first()
    return _case(row)


async def is_post(session: AsyncSession, platform: str, ref: str) -> bool:
    """True when `ref` is a staff-room message of some case."""
    found = await session.scalar(
        text("SELECT 1 FROM handoff_posts WHERE platform = :platform AND ref = :ref"),
        {"platform": platform, "ref": ref},
    )
    return found is not None


async def record_post(
    session: AsyncSession, platform: str, ref: str, case_id: int, is_card: bool
) -> None:
    """Remember a message the bot posted in a staff room for a case."""
    await session.execute(
        text(
            "INSERT INTO handoff_posts (platform, ref, case_id, is_card)"
            " VALUES (:platform, :ref, :case_id, :is_card) ON CONFLICT DO NOTHING"
        ),
        {"platform": platform, "ref": ref, "case_id": case_id, "is_card": is_card},
    )


async def card_ref(session: AsyncSession, case_id: int, platform: str) -> str | None:
    """The case card's "chat:message" in `platform`'s staff room, once it was posted (the
    newest: a card that could not be edited is posted anew)."""
    found = await session.scalar(
        text(
            "SELECT ref FROM handoff_posts WHERE case_id = :id AND platform = :platform"
            " AND is_card ORDER BY created_at DESC LIMIT 1"
        ),
        {"id": case_id, "platform": platform},
    )
    return str(found) if found is not None else None


async def add_message(
    session: AsyncSession,
    case_id: int,
    direction: str,
    platform: str,
    author: str,
    body: str,
    source: str,
) -> bool:
    """Store a relayed message once per `source`; False when it was already relayed.

    The first message to the asker sets the case's first reply time.
    """
    new_id = await session.scalar(
        text(
            "INSERT INTO handoff_messages (case_id, direction, platform, author, text, source)"
            " VALUES (:case_id, :direction, :platform, :author, :body, :source)"
            " ON CONFLICT (source) DO NOTHING RETURNING id"
        ),
        {
            "case_id": case_id,
            "direction": direction,
            "platform": platform,
            "author": author,
            "body": body,
            "source": source,
        },
    )
    if new_id is not None and direction == "to_asker":
        await session.execute(
            text(
                "UPDATE handoff_cases SET first_reply_at = coalesce(first_reply_at, now())"
                " WHERE id = :id"
            ),
            {"id": case_id},
        )
    return new_id is not None


async def _change(
    session: AsyncSession, case_id: int, changes: str, condition: str, by: str
) -> dict[str, Any] | None:
    row = (
        await session.execute(
            text(
                f"UPDATE handoff_cases SET {changes} WHERE id = :id AND {condition}"
                f" RETURNING {_CASE_COLUMNS}"
            ),
            {"id": case_id, "by": by},
        )
    ).first()
    return _case(row)


async def claim(session: AsyncSession, case_id: int, by: str) -> dict[str, Any] | None:
    """Claim an open case; the case after, or None when it was not open."""
    changes = "status = 'claimed', claimed_by = :by, claimed_at = now()"
    return await _change(session, case_id, changes, "status = 'open'", by)


async def close(session: AsyncSession, case_id: int, by: str) -> dict[str, Any] | None:
    """Close a case not closed yet; the case after, or None."""
    changes = "status = 'closed', closed_by = :by, closed_at = now()"
    return await _change(session, case_id, changes, "status <> 'closed'", by)


async def staff_answer(session: AsyncSession, case_id: int) -> str:
    """What staff told the asker, in order (blank lines between messages)."""
    rows = await session.scalars(
        text(
            "SELECT text FROM handoff_messages WHERE case_id = :id AND direction = 'to_asker'"
            " ORDER BY id"
        ),
        {"id": case_id},
    )
    return "\n\n".join(r for r in rows if r.strip())


KB_PENDING = 0  # kb_upload_id while the upload is being queued (one press wins)


KB_CLAIM_EXPIRES_S = 600  # a claim whose worker died (no upload id after this) is free again


async def claim_kb(session: AsyncSession, case_id: int) -> bool:
    """Take the right to add a closed case to the knowledge base (once per case; a claim
    left pending by a worker that died frees itself after KB_CLAIM_EXPIRES_S)."""
    found = await session.scalar(
        text(
            "UPDATE handoff_cases SET kb_upload_id = :pending, kb_claimed_at = now()"
            " WHERE id = :id AND status = 'closed' AND (kb_upload_id IS NULL"
            " OR (kb_upload_id = :pending"
            " AND kb_claimed_at < now() - make_interval(secs => :expires)))"
            " RETURNING id"
        ),
        {"id": case_id, "pending": KB_PENDING, "expires": KB_CLAIM_EXPIRES_S},
    )
    return found is not None


async def adds_kb_upload(session: AsyncSession, case_id: int, upload_id: int) -> bool:
    """True when `upload_id` is the upload adding closed case `case_id` to the knowledge
    base: its claim is held (the upload may run before the claim names it) or names it."""
    found = await session.scalar(
        text(
            "SELECT 1 FROM handoff_cases WHERE id = :id AND status = 'closed'"
            " AND kb_upload_id IN (:pending, :upload)"
        ),
        {"id": case_id, "pending": KB_PENDING, "upload": upload_id},
    )
    return found is not None


async def set_kb_upload(session: AsyncSession, case_id: int, upload_id: int | None) -> None:
    """Note the upload that added the case's answer (None: it failed, the case may again)."""
    await session.execute(
        text("UPDATE handoff_cases SET kb_upload_id = :upload WHERE id = :id"),
        {"id": case_id, "upload": upload_id},
    )


async def card_failed(session: AsyncSession, case_id: int, platform: str) -> bool:
    """True when the outbox gave up posting the case's card on `platform`."""
    found = await session.scalar(
        text(
            "SELECT 1 FROM outbox WHERE platform = :platform AND key = :key AND status = 'failed'"
        ),
        {"platform": platform, "key": f"handoff:{case_id}:card:{platform}"},
    )
    return found is not None


MAX_REMINDERS = 3  # then the room has been told enough; `ragbot gaps` and stats still show it


async def take_reminders(
    session: AsyncSession, after_minutes: float, limit: int = 20
) -> list[dict[str, Any]]:
    """Cases still without a staff reply `after_minutes` after they opened (or after their
    last reminder), at most MAX_REMINDERS times: marked reminded now and returned (each
    one by one worker only)."""
    rows = await session.execute(
        text(
            "UPDATE handoff_cases SET reminded_at = now(), reminders = reminders + 1"
            " WHERE id IN (SELECT id FROM handoff_cases WHERE status <> 'closed'"
            " AND first_reply_at IS NULL AND reminders < :most"
            " AND coalesce(reminded_at, created_at) < now() - make_interval(secs => :secs)"
            " ORDER BY id LIMIT :limit FOR UPDATE SKIP LOCKED)"
            f" RETURNING {_CASE_COLUMNS}"
        ),
        {"secs": after_minutes * 60, "limit": limit, "most": MAX_REMINDERS},
    )
    return [dict(r._mapping) for r in rows]
