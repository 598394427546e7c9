"""`sources` in chat: the synced sources listed as `ragbot sources list` shows them, and
`sources sync <name>` queued for an admin (its result told where it was asked)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.core.admin.audit import Actor, AuditLog
from bot.core.messages import Reply
from storage.sources.report import result_text
from textkit.catalog import say

if TYPE_CHECKING:
    from bot.core.admin.jobs import JobQueue
    from bot.core.admin.sources import Sources

SOURCES_USAGE = "sources [list] | sources sync <name>"


class SourceCommands:
    """The `sources` chat command over the synced sources and the job queue."""

    def __init__(self, log: AuditLog, sources: Sources | None, jobs: JobQueue | None) -> None:
        self._log = log
        self._sources = sources
        self._jobs = jobs

    async def run(
        self, actor: Actor, args: list[str], language: str, conversation_key: str | None
    ) -> Reply:
        """`sources [list]` as `ragbot sources list` shows them; `sources sync <name>` queues
        a sync of one (its result is told where it was asked, when the platform can)."""
        await self._log.check(actor, "sources", " ".join(args) or None)
        if self._sources is None:
            return Reply(say("sources_not_here", language), language, "unavailable")
        words = [a.lower() for a in args]
        if words in ([], ["list"]):
            rows = await self._sources.list_sources(actor)
            text = "\n".join(map(source_line, rows)) or say("empty_list", language, kind="sources")
            return Reply(text, language, "sources", {"sources": rows})
        if words[0] != "sync" or len(args) < 2:
            return Reply(say("usage", language, usage=SOURCES_USAGE), language, "usage")
        name = " ".join(args[1:])
        known = {row["name"] for row in await self._sources.list_sources(actor)}
        if name not in known:
            text = say("not_found", language, kind="source", name=name)
            return Reply(text, language, "not_found")
        syncs = self._jobs.source_syncs if self._jobs is not None else None
        if syncs is None:
            return Reply(say("sources_not_here", language), language, "unavailable")
        job_id = await syncs.defer(name, actor, conversation_key, language)
        await self._log.audit(actor, "sources:sync", name, "queued", f"job {job_id}")
        text = say("sources_sync_queued", language, name=name)
        return Reply(text, language, "sources_sync_queued", {"job_id": job_id, "source": name})


def source_line(row: dict[str, Any]) -> str:
    """One source as `sources` lists it in chat: the columns of `ragbot sources list`."""
    return (
        f"• {row['name']} ({row['kind']}, {row['collection']}): last sync"
        f" {row['last_sync'] or 'never'}, next {row['next_sync'] or '-'},"
        f" {row['documents']} documents — {result_text(row['last_result'])}"
    )
