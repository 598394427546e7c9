"""AdminService: the admin parts together, for the callers that need them all (chat commands).

Each part has one job and writes the same audit log: `knowledge` (documents,
forms, uploads), `reports` (counts, gaps, traces), `memory` (remembered answers).
A caller that needs one part is handed that part.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.core.admin.audit import AuditLog
from bot.core.admin.jobs import JobQueue
from bot.core.admin.knowledge import Knowledge
from bot.core.admin.memory import RememberedAnswers
from bot.core.admin.reports import Reports
from storage.db import Database
from storage.forms import FormService
from storage.ingestion import IngestionService
from storage.memory import AnswerMemory
from storage.upload_policy import UploadPolicy

if TYPE_CHECKING:  # the sources' modules load with the job queue that runs them
    from bot.core.admin.sources import Sources


@dataclass(frozen=True)
class AdminService:
    """The audit log and the admin parts that write it."""

    log: AuditLog
    knowledge: Knowledge
    reports: Reports
    memory: RememberedAnswers
    sources: Sources | None = None  # the synced sources (the job queue's, when it has them)

    @classmethod
    def build(
        cls,
        db: Database,
        ingestion: IngestionService,
        forms: FormService,
        jobs: JobQueue | None,
        policy: UploadPolicy,
        memory: AnswerMemory | None = None,
    ) -> AdminService:
        """The parts over one database, sharing one audit log (uploads need `jobs`)."""
        log = AuditLog(db)
        return cls(
            log,
            Knowledge(db, log, ingestion, forms, jobs, policy),
            Reports(db, log, ingestion.embedder),
            RememberedAnswers(log, memory),
            jobs.sources if jobs is not None else None,
        )
