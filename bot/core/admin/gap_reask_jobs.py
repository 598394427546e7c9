"""The `reask_gaps` job: after an upload or a sync, open questions asked again on the queue.

An upload's notice waits for it, so the uploader reads in one message that the file
was added and "N of M open questions on this topic are now answered"; a sync's
counts are added to its stored result (`ragbot sources list` shows them).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from procrastinate import App, RetryStrategy

from bot.core.admin.gap_reask import GapReasker, Reasked
from bot.core.messages import UploadOutcome
from storage.db import Database
from storage.repositories import gap_reasks as gap_repo
from storage.repositories import uploads as uploads_repo
from storage.sources.report import SyncReport
from textkit.catalog import say

logger = logging.getLogger(__name__)
REASK_TASK = "reask_gaps"


class GapReaskJobs:
    """Defers the re-asks of an upload or a sync, runs them, says or records the counts."""

    def __init__(
        self,
        app: App,
        db: Database,
        reasker: GapReasker,
        notify: Callable[[UploadOutcome], Awaitable[None]],
    ) -> None:
        self._db = db
        self._reasker = reasker
        self._notify = notify
        # a worker stopped half-way: asked again from the start (answered ones are recorded)
        self._task = app.task(
            name=REASK_TASK, queue=uploads_repo.INGEST_QUEUE, retry=RetryStrategy(max_attempts=2)
        )(self.run)

    async def after_upload(self, outcome: UploadOutcome, language: str) -> bool:
        """Queue the re-asks of an added upload, its notice sent when they are done;
        False when they could not be queued (the caller sends the notice now)."""
        notice = {**dataclasses.asdict(outcome), "buttons": []}  # added: no buttons
        try:
            await self._task.defer_async(
                titles=[outcome.title],
                upload_id=outcome.upload_id,
                notice=notice,
                language=language,
            )
        except Exception:
            logger.exception("could not queue the re-asks of upload %s", outcome.upload_id)
            return False
        return True

    async def after_sync(self, source_id: int, report: SyncReport) -> None:
        """Queue the re-asks of a sync that added or changed documents."""
        keys = report.added + report.changed
        if not keys:
            return
        async with self._db.sessions() as session:
            titles = await gap_repo.titles_of(session, source_id, keys)
        try:
            await self._task.defer_async(titles=titles, source_id=source_id)
        except Exception:  # the sync stands; only its re-asks are lost
            logger.exception("could not queue the re-asks of source %s", source_id)

    async def run(
        self,
        titles: list[str],
        upload_id: int | None = None,
        source_id: int | None = None,
        notice: dict[str, Any] | None = None,
        language: str = "en",
    ) -> dict[str, int]:
        """The job: ask again, then tell the uploader or record the counts with the sync."""
        try:
            reasked = await self._reasker.reask(titles, upload_id=upload_id, source_id=source_id)
        except Exception:  # the upload's notice still goes out
            logger.exception("asking open questions again failed (%s)", titles)
            reasked = Reasked()
        counts = reasked.as_json()
        if source_id is not None:
            async with self._db.transaction() as session:
                await gap_repo.note_on_sync(session, source_id, counts)
        if notice is not None:
            text = str(notice["text"])
            if reasked.asked:
                line = say(
                    "gaps_reasked", language, answered=counts["answered"], asked=reasked.asked
                )
                text = f"{text}\n{line}"
            await self._notify(UploadOutcome(**{**notice, "buttons": (), "text": text}))
        return counts
