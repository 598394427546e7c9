"""The answer memory's admin part: list remembered answers, forget them; audited."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.admin.audit import Actor, AuditLog, view_scope
from storage.memory import AnswerMemory


class RememberedAnswers:
    """The answer memory as admins see it (empty when MEMORY_ENABLED is off)."""

    def __init__(self, log: AuditLog, memory: AnswerMemory | None) -> None:
        self.log = log
        self._memory = memory

    @property
    def store(self) -> AnswerMemory | None:
        """The answer memory (None when MEMORY_ENABLED is off)."""
        return self._memory

    async def memory_entries(
        self, actor: Actor, limit: int = 100, collections: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """The answer memory, newest first (empty when MEMORY_ENABLED is off).

        A chat admin sees only entries their platform's audience may read
        (`collections`) that were asked on their own platform; the CLI sees all.
        """
        await self.log.check(actor, "memory", "list")
        scope = view_scope(actor, collections)
        rows = await self._memory.entries(limit, *scope) if self._memory is not None else []
        await self.log.audit(actor, "memory", "list", "ok")
        return [
            {
                "id": r["id"],
                "question": r["question"],
                "language": r["language"],
                "documents": sorted({c["document"] for c in r["citations"]}),
                "forms": sorted({f["name"] for f in r["forms"]}),
                "collections": list(r["collections"]),
                "hits": r["hits"],
                "helpful": r["helpful"],
                "valid": r["valid"],
                "created_at": r["created_at"].isoformat(timespec="seconds"),
                "last_hit_at": r["last_hit_at"].isoformat(timespec="seconds")
                if r["last_hit_at"]
                else None,
            }
            for r in rows
        ]

    async def forget_memory(
        self, actor: Actor, entry_id: int | None, collections: Sequence[str] | None = None
    ) -> int:
        """Delete one remembered answer, or all of them (None), of those the actor may list."""
        target = "all" if entry_id is None else str(entry_id)
        await self.log.check(actor, "memory forget", target)
        scope = view_scope(actor, collections)
        removed = await self._memory.forget(entry_id, *scope) if self._memory is not None else 0
        await self.log.audit(actor, "memory forget", target, "ok")
        return removed
