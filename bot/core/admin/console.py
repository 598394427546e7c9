"""The admin console's core part: its sessions, its answers, and what its pages show.

The console (`/admin`, bot.api.console) reads and changes through the admin parts
the chat commands and the CLI use: documents and uploads through `Knowledge`,
counts and gaps through `Reports`, cases through the staff inbox. What only the
console needs is here: documents with how often each was cited, votes with
their answer, sources and decision path in plain words, and turns per day.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.core.admin.audit import Actor
from bot.core.admin.console_answers import ConsoleAnswers
from bot.core.admin.console_oidc import ConsoleOidc
from bot.core.admin.console_sessions import ConsoleSession, ConsoleSessions
from bot.core.admin.plain_paths import plain_path
from bot.core.admin.service import AdminService
from bot.settings import API_PLATFORM
from storage.db import Database
from storage.repositories import admin_console as console_repo

VOTES_SHOWN = 50
FIGURE_DAYS = 14


def key_actor(who: ConsoleSession) -> Actor:
    """The actor of document changes and uploads: the key, as over the HTTP API (its
    collections, the upload rules of an API upload)."""
    return Actor(API_PLATFORM, who.grant.name, True)


class AdminConsole:
    """Sessions, published answers and the pages' views."""

    def __init__(
        self,
        db: Database,
        admin: AdminService,
        sessions: ConsoleSessions,
        answers: ConsoleAnswers,
        configured: Collection[str] = (),
        oidc: ConsoleOidc | None = None,
    ) -> None:
        self._db = db
        self._admin = admin
        self.sessions = sessions
        self.answers = answers
        self.oidc = oidc  # the identity provider's sign-in (None: OIDC_ISSUER unset)
        # the collections the platforms' settings name, documents in them or not yet
        self._configured = frozenset(configured)

    async def unread_collections(self, who: ConsoleSession) -> list[str]:
        """The collections this key does not read, among those configured, holding
        documents or read by any active key. Gaps, feedback, figures, cases and uploads'
        jobs hold every platform's questions and answers: they are shown only to an admin
        key for which this is empty (one that reads everything)."""
        async with self._db.sessions() as session:
            in_use = await console_repo.collections_in_use(session)
        return sorted((in_use | self._configured) - set(who.grant.collections))

    async def documents(self, who: ConsoleSession) -> list[dict[str, Any]]:
        """The key's collections' documents, each with how many answers cited it."""
        docs = await self._admin.knowledge.list_documents(key_actor(who), who.grant.collections)
        async with self._db.sessions() as session:
            cited = await console_repo.citation_counts(session)
        return [{**doc, "cited": cited.get(doc["title"], 0)} for doc in docs]

    async def votes(self, who: ConsoleSession, language: str) -> list[dict[str, Any]]:
        """The newest votes: the answer, its question, sources and plain decision path."""
        await self._admin.log.check(who.actor, "console:feedback", None)
        async with self._db.sessions() as session:
            rows = await console_repo.recent_votes(session, VOTES_SHOWN)
        return [
            {
                "helpful": row["rating"] > 0,
                "platform": row["platform"],
                "at": row["at"].isoformat(timespec="seconds"),
                "question": row["question"] or "",
                "answer": row["answer"] or "",
                "sources": _sources(row["citations"]),
                "path": plain_path(row["path"] or [], language),
            }
            for row in rows
        ]

    async def figures(self, who: ConsoleSession, days: int = FIGURE_DAYS) -> dict[str, Any]:
        """`ragbot stats` over `days`, with turns, refusals and votes per day."""
        stats = await self._admin.reports.stats(who.actor, days)
        since = datetime.now(UTC) - timedelta(days=days - 1)
        async with self._db.sessions() as session:
            daily = await console_repo.daily_turns(session, since)
        stats["daily"] = [{**d, "day": d["day"].isoformat()} for d in daily]
        return stats


def _sources(citations: Sequence[Any] | None) -> list[str]:
    titles = []
    for citation in citations if isinstance(citations, list) else []:
        title = str(citation.get("document", "")) if isinstance(citation, dict) else ""
        if title and title not in titles:
            titles.append(title)
    return titles
