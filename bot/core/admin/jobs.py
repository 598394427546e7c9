"""Upload ingestion as jobs on procrastinate, a Postgres-backed queue library.

An upload's bytes are stored in Postgres with the upload row, so any worker
(`ragbot serve` or `ragbot worker`, on any machine) can run its job; a queued
job survives restarts, and a job a stopped worker had to abandon is retried.

An upload row and its job are committed in one transaction (`defer_upload` runs in
the caller's session), so a failure to queue leaves no upload behind. An upload
that has no job anyway (*stranded*: a row from before that, a job deleted by hand)
is re-queued by the worker when it starts and every five minutes, at most once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from procrastinate import App, PsycopgConnector, RetryStrategy
from sqlalchemy import func
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.core.admin.audit import Actor
from bot.core.admin.gap_reask import GapReasker
from bot.core.admin.gap_reask_jobs import GapReaskJobs
from bot.core.admin.held_uploads import held_outcome
from bot.core.admin.retention import purge_expired
from bot.core.admin.source_jobs import SourceSyncJobs
from bot.core.messages import Notifier, UploadOutcome
from bot.settings import ADMIN_PAGE, CONSOLE_PLATFORMS
from bot.telemetry import Telemetry
from storage import origins
from storage.db import Database
from storage.ingestion import ADDED, FAILED, HELD, REPLACED, IngestionService, IngestResult
from storage.models import Upload
from storage.repositories import audit as audit_repo
from storage.repositories import corrections as corrections_repo
from storage.repositories import handoff as cases_repo
from storage.repositories import uploads as uploads_repo
from textkit.catalog import say

if TYPE_CHECKING:
    from bot.core.admin.sources import Sources
    from bot.core.answering.corrections import Corrections
    from bot.core.answering.new_answers import AskerRenderer
    from bot.turn.service import AnswerService

logger = logging.getLogger(__name__)
QUEUE = uploads_repo.INGEST_QUEUE
SCHEDULE = Actor("schedule", "ragbot", is_admin=True)  # who the audit log says synced


def libpq_url(url: str) -> str:
    """The SQLAlchemy URL as libpq reads it (procrastinate talks psycopg directly)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class JobQueue:
    """Defers upload jobs and runs them; tells the uploader through their platform's notifier."""

    def __init__(
        self,
        url: str,
        db: Database,
        ingestion: IngestionService,
        telemetry: Telemetry | None = None,
        retention_days: int | None = None,
        sources: Sources | None = None,
        corrections: Corrections | None = None,
        answers: Callable[[], AnswerService] | None = None,
        renderers: Mapping[str, AskerRenderer] | None = None,
        timezone: str = "UTC",
        db_wait_s: float = 30.0,
    ) -> None:
        self._db = db
        self._sources = sources
        self.corrections = corrections  # re-asks after a document changes (None: not here)
        self._retention_days = retention_days
        self._ingestion = ingestion
        self._telemetry = telemetry
        self.notifiers: dict[str, Notifier] = {}
        # `db_wait_s`: a query waits this long for a connection, then fails; the worker
        # stops on that failure (bot.app.lifecycle restarts it): how soon a lost database
        # is noticed (procrastinate's listener alone takes up to a minute)
        connector = PsycopgConnector(
            conninfo=libpq_url(url), min_size=1, max_size=4, timeout=db_wait_s
        )
        self.app = App(connector=connector)
        # A job a stopped worker abandoned (shutdown grace exceeded) goes back to the
        # queue; the ingestion itself never raises, so retries are only for that.
        # deferred by storage.repositories.uploads.defer_ingestion under these names
        self.app.task(
            name=uploads_repo.INGEST_TASK,
            queue=QUEUE,
            retry=RetryStrategy(max_attempts=3, wait=2),
        )(self.run_upload)
        # deferred with a document's change by storage.repositories.corrections
        self.app.task(
            name=corrections_repo.CORRECTION_TASK,
            queue=QUEUE,
            retry=RetryStrategy(max_attempts=3, wait=30),
        )(self.correct_answers)
        retry_stalled = self.app.task(
            name="retry_stalled_jobs", queue=QUEUE, queueing_lock="retry_stalled_jobs"
        )(self._retry_stalled)
        self.app.periodic(cron="*/5 * * * *", periodic_id="retry_stalled")(retry_stalled)
        purge = self.app.task(name="purge_expired", queue=QUEUE, queueing_lock="purge_expired")(
            self._purge
        )
        self.app.periodic(cron="17 3 * * *", periodic_id="purge_expired")(purge)
        self.source_syncs = (
            SourceSyncJobs(self.app, sources, self._notify) if sources is not None else None
        )
        # `answers`: the answering path, for asking open questions again after an upload
        # or a sync added documents (bot.core.admin.gap_reask)
        self.gap_reasks = None
        if answers is not None:
            narrow = corrections.readable_now if corrections is not None else None
            reasker = GapReasker(db, ingestion.embedder, answers, renderers, timezone, narrow)
            self.gap_reasks = GapReaskJobs(self.app, db, reasker, self._notify)
            if sources is not None:
                sources.on_synced(self.gap_reasks.after_sync)
        if sources is not None:
            # every minute, the sources whose stored next sync time has come: a restart
            # or a worker down for a while loses no sync, it runs at the next minute.
            # `lock`: one run at a time, however long a sync takes
            sync = self.app.task(
                name="sync_due_sources",
                queue=QUEUE,
                queueing_lock="sync_due_sources",
                lock="sync_due_sources",
            )(self.sync_due_sources)
            self.app.periodic(cron="* * * * *", periodic_id="sync_due_sources")(sync)

    @property
    def sources(self) -> Sources | None:
        """The synced sources this queue runs the syncs of (None: no sources here)."""
        return self._sources

    async def open(self) -> None:
        """Open the queue's connection pool."""
        await self.app.open_async()

    async def close(self) -> None:
        """Close the pool."""
        await self.app.close_async()

    async def defer_upload(
        self, session: AsyncSession, upload_id: int, allow_personal_data: bool = False
    ) -> int:
        """Queue the ingestion of an upload in `session`'s transaction; the job id.

        The job exists exactly when the transaction that stores (or re-queues) the
        upload commits; workers hear of it at that commit. `allow_personal_data`: an
        admin chose to publish it anyway (no screening).
        """
        return await uploads_repo.defer_ingestion(
            session, upload_id, allow_personal_data=allow_personal_data
        )

    async def requeue_stranded(
        self, older_than_s: float = uploads_repo.STRANDED_AFTER_S
    ) -> list[int]:
        """Give every queued upload older than `older_than_s` with no live job one job;
        the ids re-queued. Idempotent, and safe with several workers sweeping at once.

        Each upload is claimed in its own transaction (row lock, skipping rows another
        sweeper holds, and re-checked there), and procrastinate's queueing lock refuses
        a second waiting job for one upload. The job screens for personal data again:
        whether an admin had allowed it is not on the row, and screening is the safe side
        (a file that holds some is held and its uploader asked, as on first arrival).
        """
        async with self._db.sessions() as session:
            seen = [
                (u.id, u.job_id)
                for u in await uploads_repo.stranded_uploads(
                    session, older_than_s, statuses=("queued",)
                )
            ]
        requeued: list[int] = []
        for upload_id, job_id in seen:
            try:
                async with self._db.transaction() as session:
                    if not await uploads_repo.claim_stranded(session, upload_id, job_id):
                        continue
                    await self.defer_upload(session, upload_id)
            except IntegrityError:  # the queueing lock: a job is already waiting for it
                continue
            requeued.append(upload_id)
        if requeued:
            logger.warning("re-queued stranded uploads (they had no job): %s", requeued)
        return requeued

    async def run_worker(self, concurrency: int, grace_s: float, wait: bool = True) -> None:
        """Re-queue stranded uploads, then run jobs until cancelled (then finish running
        jobs within `grace_s`)."""
        try:
            await self.requeue_stranded()
        except Exception:  # not fatal: the periodic sweep tries again
            logger.exception("could not re-queue stranded uploads at worker start")
        await self.app.run_worker_async(
            queues=[QUEUE],
            concurrency=concurrency,
            wait=wait,
            install_signal_handlers=False,  # `ragbot serve` owns SIGTERM/SIGINT
            shutdown_graceful_timeout=grace_s,
            listen_notify=True,
            fetch_job_polling_interval=2.0,
        )

    async def run_upload(self, upload_id: int, allow_personal_data: bool = False) -> str:
        """The job: ingest an upload's bytes, record the outcome, tell the uploader.

        A file bound for a collection citizens or guests read (the UploadPolicy's
        screened collections) is screened for personal data after parsing
        unless an admin allowed it; one that holds any is held (bytes kept, status
        `held`, counts audited) and the uploader is asked to publish or cancel.
        """
        async with self._db.transaction() as session:
            upload = await uploads_repo.get_upload(session, upload_id, with_data=True)
            if upload is None or upload.data is None:
                return "gone"  # already done by an earlier attempt
            await uploads_repo.set_upload(session, upload_id, status="running")
            name, data, title = upload.file_name, upload.data, upload.title
            collection, language = upload.collection, upload.language or "en"
            origin = await _origin(session, upload, name, title)
        started = time.perf_counter()
        # AdminService.upload checked the file against the UploadPolicy when it came in
        result = await self._ingestion.ingest_accepted(
            name,
            data,
            title=title,
            source=f"upload:{upload.platform}:{name}",
            collection=collection,
            hold_personal_data=self._ingestion.policy.screens(collection)
            and not allow_personal_data,
            # a chat or API sender may change only the collection it names; the operator any
            replace_elsewhere=upload.platform in CONSOLE_PLATFORMS,
            origin=origin,
        )
        if result.status == HELD and result.findings is not None:
            await self._hold(upload_id, upload.platform, upload.user_id, name, result)
            await self._notify(held_outcome(upload, result, result.findings, language))
            return HELD
        async with self._db.transaction() as session:
            await uploads_repo.set_upload(
                session,
                upload_id,
                status=result.status,
                reason=result.reason,
                chunks=result.chunks,
                data=None,  # the document now holds the content
                finished_at=func.now(),
            )
            await audit_repo.audit(
                session,
                upload.platform,
                upload.user_id,
                "upload:ingested",
                title,
                "failed" if result.status == FAILED else "ok",
                result.reason,
            )
        if self._telemetry is not None:
            self._telemetry.ingestion(
                upload.platform,
                upload.user_id,
                {
                    "upload_id": upload_id,
                    "file": name,
                    "title": result.title or title,
                    "collection": collection,
                    "bytes": len(data),
                    "status": result.status,
                    "chunks": result.chunks,
                    "reason": result.reason,
                    "seconds": round(time.perf_counter() - started, 3),
                },
            )
        outcome = UploadOutcome(
            upload_id=upload_id,
            platform=upload.platform,
            user_id=upload.user_id,
            conversation_key=upload.conversation_key,
            file_name=name,
            title=result.title or title,
            status=result.status,
            chunks=result.chunks,
            reason=result.reason,
            text=say(
                f"upload_{result.status}",
                language,
                name=name,
                title=result.title or title,
                chunks=result.chunks,
                reason=result.reason,
            ),
        )
        # new documents: the notice waits for the open questions they answer (same message)
        reasks = self.gap_reasks if result.status in (ADDED, REPLACED) else None
        if reasks is None or not await reasks.after_upload(outcome, language):
            await self._notify(outcome)
        return result.status

    async def _hold(
        self,
        upload_id: int,
        platform: str,
        user_id: str,
        name: str,
        result: IngestResult,
    ) -> None:
        """Keep the bytes, mark the upload held, audit the counts of what was found."""
        async with self._db.transaction() as session:
            await uploads_repo.set_upload(session, upload_id, status=HELD, reason=result.reason)
            await audit_repo.audit(
                session,
                platform,
                user_id,
                "upload:held",
                name,
                HELD,
                result.findings.summary() if result.findings else None,
            )

    async def _notify(self, outcome: UploadOutcome) -> None:
        notifier = self.notifiers.get(outcome.platform)
        if notifier is None:
            logger.info(
                "upload %s: %s (no notifier for %s)",
                outcome.upload_id,
                outcome.status,
                outcome.platform,
            )
            return
        try:
            await notifier(outcome)
        except Exception:  # the outcome is stored; `jobs` shows it even if the message fails
            logger.exception(
                "could not tell %s about upload %s", outcome.platform, outcome.upload_id
            )

    async def _purge(self, timestamp: int) -> None:
        """Daily: apply RETENTION_DAYS (once across all workers: procrastinate's periodic lock)."""
        del timestamp
        if self._retention_days is not None:
            await purge_expired(self._db, self._retention_days)

    async def sync_due_sources(self, timestamp: int) -> list[str]:
        """Sync the sources that are due (docs/sources.md); the names synced."""
        del timestamp  # the stored next sync times decide, not when the job was planned
        if self._sources is None:
            return []
        done = await self._sources.sync_due(SCHEDULE, datetime.now(UTC))
        for name, report in done:
            logger.info("source %s synced: %s", name, report.status)
        return [name for name, _ in done]

    async def correct_answers(self, **change: Any) -> dict[str, int]:
        """The job a document's change deferred: its answers re-asked, askers told
        (bot.core.answering.corrections); how many ended each way."""
        if self.corrections is None:  # a queue built without the answering side
            logger.warning("corrections for %r skipped: no answer service here", change)
            return {}
        return await self.corrections.run(change)

    async def _retry_stalled(self, timestamp: int) -> None:
        """Jobs of workers that died (no heartbeat) go back to the queue; uploads left
        with no job at all get one (`requeue_stranded`)."""
        del timestamp
        for job in await self.app.job_manager.get_stalled_jobs():
            await self.app.job_manager.retry_job(job)
        await self.requeue_stranded()


async def _origin(session: AsyncSession, upload: Upload, file_name: str, title: str) -> str:
    """A staff answer's origin for the upload a hand-off case's claim names (its title and
    file name are the case's); the admin console's for its answers document (sent by the
    console, with its file name and the collection's console title); any other upload is
    a file, and ingestion refuses it a case's or the console's title: no uploader can
    take, or replace, their place."""
    if (
        upload.platform == ADMIN_PAGE
        and file_name == origins.CONSOLE_FILE_NAME
        and title == origins.console_title(upload.collection)
    ):
        return origins.CONSOLE
    case_id = origins.case_of_title(title)
    if case_id is None or file_name != origins.case_file_name(case_id):
        return origins.FILE
    if await cases_repo.adds_kb_upload(session, case_id, upload.id):
        return origins.CASE
    return origins.FILE
