"""A sync of one source asked for from chat: queued as a job, its result told to the admin.

`sources sync NAME` in Slack or Telegram only queues the sync (a website can take
minutes); a worker runs it like the scheduled ones, and the admin who asked is
told the result through the same notifier that tells uploaders about their files.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from procrastinate import App, JobContext

from bot.core.admin.audit import Actor, AdminInputError
from bot.core.messages import UploadOutcome
from storage.repositories import uploads as uploads_repo
from storage.sources.report import result_text
from textkit.catalog import say

if TYPE_CHECKING:
    from bot.core.admin.sources import Sources

SYNC_TASK = "sync_source"


class SourceSyncJobs:
    """The `sync_source` job on the queue: defer it for an admin, run it, tell them."""

    def __init__(
        self,
        app: App,
        sources: Sources,
        notify: Callable[[UploadOutcome], Awaitable[None]],
    ) -> None:
        self._sources = sources
        self._notify = notify
        self._task = app.task(name=SYNC_TASK, queue=uploads_repo.INGEST_QUEUE, pass_context=True)(
            self.run
        )

    async def defer(
        self, name: str, actor: Actor, conversation_key: str | None, language: str
    ) -> int:
        """Queue a sync of `name` for `actor` (an admin, checked by the caller); the job id."""
        return await self._task.defer_async(
            name=name,
            platform=actor.platform,
            user_id=actor.user_id,
            conversation_key=conversation_key,
            language=language,
        )

    async def run(
        self,
        context: JobContext,
        name: str,
        platform: str,
        user_id: str,
        conversation_key: str | None,
        language: str,
    ) -> str:
        """The job: sync the source now, audited as the admin who asked; tell them the result."""
        actor = Actor(platform, user_id, is_admin=True)  # an admin when they asked
        try:
            [(_, report)] = await self._sources.sync(actor, name)
        except AdminInputError:  # removed since it was queued
            status, text = "failed", say("not_found", language, kind="source", name=name)
        else:
            status = report.status
            summary = result_text(report.as_json())
            text = say("sources_sync_done", language, name=name, result=summary)
        job_id = context.job.id if context.job is not None else 0
        await self._notify(
            UploadOutcome(
                upload_id=0,
                platform=platform,
                user_id=user_id,
                conversation_key=conversation_key,
                file_name=name,
                title=name,
                status=status,
                chunks=0,
                reason=None,
                text=text,
                notice=f"sync:{job_id}",
            )
        )
        return status
