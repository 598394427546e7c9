"""The reports' admin part: knowledge-base and traffic counts, the gaps, the newest traces.

A chat admin sees their audience's collections and their own platform's traffic;
the CLI sees everything. Each report is audited.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.core.admin import gaps as gap_topics
from bot.core.admin.audit import Actor, AuditLog, view_scope
from storage.db import Database
from storage.embeddings import Embedder
from storage.repositories import corrections as corrections_repo
from storage.repositories import handoff_reports, reports
from storage.repositories import inbox as inbox_repo
from storage.repositories import outbox as outbox_repo


class Reports:
    """Counts, gaps and traces, for admins only."""

    def __init__(self, db: Database, log: AuditLog, embedder: Embedder) -> None:
        self._db = db
        self.log = log
        self._embedder = embedder

    async def stats(
        self, actor: Actor, days: int = 30, collections: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Knowledge-base counts, then the last `days` of traffic: volumes, intents,
        languages, platforms, refusal rate, feedback and latency percentiles; and
        `queues`, how the inbox and outbox stand now (the fields of `/healthz`).

        A chat admin's view is their audience's: documents, passages and forms of
        `collections`, traffic, uploads and queues of their own platform (`scope`
        says so).
        """
        await self.log.check(actor, "stats", None)
        until = datetime.now(UTC)
        since = until - timedelta(days=days)
        collections, platform = view_scope(actor, collections)
        async with self._db.sessions() as session:
            counts: dict[str, Any] = dict(await reports.counts(session, collections, platform))
            summary = await reports.turn_summary(session, since, platform)
            handoffs = await handoff_reports.summary(session, since, platform)
            corrections = await corrections_repo.summary(session, since, platform)
            queues = {
                **await inbox_repo.depth(session, platform),
                **await outbox_repo.counts(session, platform),
            }
        await self.log.audit(actor, "stats", None, "ok")
        period = {
            "days": days,
            "from": since.isoformat(timespec="seconds"),
            "to": until.isoformat(timespec="seconds"),
        }
        scope = {
            "collections": list(collections) if collections is not None else None,
            "platform": platform,
        }
        refusals = summary.get("refusals") or 0
        handoffs["refusals_handed_off"] = (
            round(min(1.0, handoffs["from_refusals"] / refusals), 4) if refusals else 0.0
        )
        return {
            **counts,
            "period": period,
            "scope": scope,
            **summary,
            "handoffs": handoffs,
            "corrections": corrections,
            "queues": queues,
        }

    async def gaps(self, actor: Actor, days: int = 30) -> dict[str, Any]:
        """What the documents did not answer in the last `days`: refused questions and
        hand-offs grouped by topic (largest, then newest, first), for admins to write."""
        await self.log.check(actor, "gaps", None)
        since = datetime.now(UTC) - timedelta(days=days)
        platform = view_scope(actor, None)[1]  # a chat admin sees their platform's
        async with self._db.sessions() as session:
            items = await handoff_reports.gap_questions(session, since, platform)
        model = self._embedder.model
        texts = [" ".join(str(i["question"]).split()) or "?" for i in items]
        vectors = await asyncio.to_thread(model.embed_documents, texts) if texts else []
        found = gap_topics.topics(items, gap_topics.cluster(vectors), vectors)
        await self.log.audit(actor, "gaps", None, "ok")
        return {"days": days, "platform": platform, "questions": len(items), "topics": found}

    async def traces(self, actor: Actor, last: int = 20) -> list[dict[str, Any]]:
        """The newest turn records: question as stored, answer, path, timings, errors."""
        await self.log.check(actor, "traces", None)
        async with self._db.sessions() as session:
            rows = await reports.recent_turns(session, last)
        await self.log.audit(actor, "traces", None, "ok")
        return rows
