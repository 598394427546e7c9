"""Builds the long-lived parts (database, embedder, services) from settings, once per process."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.app.case_renderers import asker_renderers, register_cases
from bot.app.database import prepare_database
from bot.app.uploads import chat_collections, ingest_options, upload_policy
from bot.settings import Settings, reveal
from bot.telemetry import Telemetry, load_pseudonyms
from storage.db import Database
from storage.embeddings import Embedder, build_embedder
from storage.forms import FormFinder, FormService
from storage.index import check_embedder
from storage.ingest_work import IngestWork
from storage.ingestion import IngestionService
from storage.memory import AnswerMemory
from storage.search import HybridSearcher
from storage.upload_policy import UploadPolicy

if TYPE_CHECKING:  # the answering side (langgraph and the graph) is imported when built:
    # commands that only ingest or administer start a second sooner without it
    from bot.core.admin.jobs import JobQueue
    from bot.core.admin.knowledge import Knowledge
    from bot.core.admin.memory import RememberedAnswers
    from bot.core.admin.reports import Reports
    from bot.core.admin.service import AdminService
    from bot.core.admin.sources import Sources
    from bot.core.serving import ServingCore
    from bot.turn.service import AnswerService, TurnStream
    from graph.rerank import Reranker

logger = logging.getLogger(__name__)
# how long closing waits for cancelled turns' stores: with the traces' last flush
# (SHUTDOWN_WAIT_S) well under the CLOSE_S the serving process gives a quitting worker
SETTLE_S = 4.0


@dataclass
class Runtime:
    """Everything a command or adapter needs, handed in rather than imported."""

    settings: Settings
    db: Database
    embedder: Embedder
    ingestion: IngestionService
    searcher: HybridSearcher
    url: str
    telemetry: Telemetry
    upload_policy: UploadPolicy
    server: Any = None  # the embedded Postgres handle, kept alive while we run

    _answers: AnswerService | None = field(default=None, init=False, repr=False)
    _reranker: Reranker | None = field(default=None, init=False, repr=False)

    def answer_service(self) -> AnswerService:
        """The turn service over this runtime's search, forms and (optional) LLM.

        Built once per process: the chat model holds an HTTP connection pool.
        """
        if self._answers is None:
            self._answers = self._build_answer_service()
        return self._answers

    async def close_clients(self) -> None:
        """Close the HTTP connections the answering side keeps (the reranker's)."""
        if self._reranker is not None:
            await self._reranker.aclose()

    async def settle_turns(self, timeout: float) -> None:
        """Let the stores of turns cancelled on the way out (a drain's grace over, a worker
        told to quit) finish before the database closes: each keeps its stopped answer or
        its question as unfinished, and finishes its trace."""
        if self._answers is not None and not await self._answers.settle(timeout):
            logger.warning(
                "cancelled turns' stores still running after %.1f s were stopped;"
                " their questions may not be in the history",
                timeout,
            )

    def _build_answer_service(self) -> AnswerService:
        from bot.turn.service import AnswerService
        from graph.attack_similarity import attack_bank
        from graph.context import GraphContext
        from graph.cpu_lane import CpuLane
        from graph.models import build_chat_model
        from graph.prompts import versions
        from graph.rerank import build_reranker

        cfg = self.settings
        reranker = build_reranker(
            cfg.rerank_base_url, cfg.rerank_model, reveal(cfg.rerank_api_key), cfg.rerank_timeout_s
        )
        self._reranker = reranker
        llm = build_chat_model(
            cfg.llm_base_url,
            reveal(cfg.llm_api_key),
            cfg.llm_model,
            cfg.llm_timeout_s,
            cfg.llm_max_tokens,
        )
        context = GraphContext(
            searcher=self.searcher,
            forms=FormFinder(self.db),
            llm=llm,
            llm_timeout=cfg.llm_timeout_s,
            llm_retries=cfg.llm_max_retries,
            embedder=self.embedder.model,
            # the similarity screen's threshold holds for the local model only
            screen_embedder=self.embedder.model if self.embedder.is_local else None,
            top_k=cfg.search_top_k,
            max_loops=cfg.max_retrieval_loops,
            llm_planner=cfg.llm_planner,
            entry_check=cfg.llm_entry_check,
            related_questions=cfg.related_questions,
            # the versioned texts this run uses, for the trace (the attack bank always)
            prompt_versions={
                **(
                    versions(without=() if cfg.llm_entry_check else ("entry_check",))
                    if llm is not None
                    else {}
                ),
                "attacks": attack_bank().version,
            },
            handoff=cfg.handoff_contacts(),
            # with the local embedder a turn's search is CPU; a remote one's is a network
            # wait, which must not hold the lane (graph.cpu_lane), nor must a reranker's
            # request, made in the same step
            cpu_lane=(
                CpuLane(cfg.cpu_lane_patience_s)
                if self.embedder.is_local and reranker is None and cfg.cpu_lane_patience_s > 0
                else None
            ),
            reranker=reranker,
        )
        return AnswerService(
            self.db,
            context,
            history_messages=cfg.history_messages,
            telemetry=self.telemetry,
            memory=self.answer_memory(),
        )

    def answer_memory(self) -> AnswerMemory | None:
        """The answer memory (None when MEMORY_ENABLED is off)."""
        cfg = self.settings
        if not cfg.memory_enabled:
            return None
        return AnswerMemory(self.db, self.embedder, cfg.memory_ttl_days, cfg.memory_min_similarity)

    def admin_service(self, jobs: JobQueue | None = None) -> AdminService:
        """Every admin part over this runtime's knowledge base (uploads need `jobs`)."""
        from bot.core.admin.service import AdminService

        forms = FormService(self.db, self.upload_policy.max_bytes)
        return AdminService.build(
            self.db,
            self.ingestion,
            forms,
            jobs,
            self.upload_policy,
            memory=self.answer_memory(),
        )

    def admin_knowledge(self, jobs: JobQueue | None = None) -> Knowledge:
        """The admin commands on documents, forms and uploads (uploads need `jobs`)."""
        from bot.core.admin.audit import AuditLog
        from bot.core.admin.knowledge import Knowledge

        forms = FormService(self.db, self.upload_policy.max_bytes)
        return Knowledge(
            self.db, AuditLog(self.db), self.ingestion, forms, jobs, self.upload_policy
        )

    def admin_sources(self) -> Sources:
        """The admin commands on sources that sync (websites, folders, Confluence spaces)."""
        from bot.core.admin.audit import AuditLog
        from bot.core.admin.sources import Sources
        from bot.settings import reveal
        from storage.sources.confluence import ConfluenceLogin
        from storage.sources.sync import SourceSyncer
        from storage.sources.web import WebLimits

        cfg = self.settings
        limits = WebLimits(
            requests_per_second=cfg.source_requests_per_second,
            timeout_s=cfg.source_timeout_s,
            max_bytes=int(cfg.source_max_page_mb * 1024 * 1024),
            user_agent=cfg.source_user_agent,
        )
        login = ConfluenceLogin(
            cfg.confluence_user, reveal(cfg.confluence_api_token), reveal(cfg.confluence_token)
        )
        syncer = SourceSyncer(self.db, self.ingestion, limits, login)
        return Sources(self.db, AuditLog(self.db), syncer, readable=chat_collections(cfg))

    def admin_reports(self) -> Reports:
        """The admin reports: counts, gaps, traces."""
        from bot.core.admin.audit import AuditLog
        from bot.core.admin.reports import Reports

        return Reports(self.db, AuditLog(self.db), self.ingestion.embedder)

    def admin_memory(self) -> RememberedAnswers:
        """The admin commands on the answer memory."""
        from bot.core.admin.audit import AuditLog
        from bot.core.admin.memory import RememberedAnswers

        return RememberedAnswers(AuditLog(self.db), self.answer_memory())

    def serving_core(
        self, jobs: JobQueue | None = None, turns: TurnStream | None = None
    ) -> ServingCore:
        """The core adapters plug into, with every platform's case renderer
        (`register_cases`)."""
        from bot.core.assembly import build_core  # here: other commands need no core

        core = build_core(
            self.db, self.answer_service(), self.admin_service(jobs), self.settings, turns
        )
        register_cases(core)
        return core

    def job_queue(self) -> JobQueue:
        """The job queue on this runtime's database: uploads, and the sources' schedule
        (open it before use)."""
        from bot.core.admin.jobs import JobQueue
        from bot.core.answering.corrections import Corrections

        renderers = asker_renderers()
        corrections = Corrections(self.db, self.settings, self.answer_service, renderers)
        return JobQueue(
            self.url,
            self.db,
            self.ingestion,
            self.telemetry,
            self.settings.retention_days,
            sources=self.admin_sources(),
            corrections=corrections,
            answers=self.answer_service,  # built when open questions are first asked again
            # how their askers are offered the answer (CORRECTIONS_ENABLED=false: never)
            renderers=renderers if self.settings.corrections_enabled else None,
            timezone=self.settings.handoff_timezone,
            db_wait_s=self.settings.job_db_wait_s,
        )


@asynccontextmanager
async def open_runtime(
    settings: Settings, check_index: bool = True, ingest_processes: int | None = None
) -> AsyncIterator[Runtime]:
    """Start what the process needs; dispose of it on the way out.

    `ingest_processes` replaces INGEST_PROCESSES (`ragbot ingest` uses every core).
    """
    url, server = await asyncio.to_thread(prepare_database, settings)
    embedder = await asyncio.to_thread(
        build_embedder,
        settings.embedding_base_url,
        reveal(settings.embedding_api_key),
        settings.embedding_model,
        settings.embedding_dim,
    )
    # closed last to first, each step even when one after it failed or was cut short
    # (a second Ctrl-C cancels the close itself)
    async with AsyncExitStack() as closing:
        # on top of the work: the conversation locks' connection and the Stop relay's listener
        db = Database.connect(url, pool_size=settings.db_pool_size + 2)
        closing.push_async_callback(db.dispose)
        policy = upload_policy(settings)
        options = ingest_options(settings, policy)
        processes = settings.ingest_processes if ingest_processes is None else ingest_processes
        work = IngestWork(embedder, processes, settings.ingest_nice, options.batch_size)
        closing.push_async_callback(work.close)
        if check_index:
            await check_embedder(db, embedder)
        telemetry = await open_telemetry(settings, db)
        # sends what is buffered; bounded (SHUTDOWN_WAIT_S)
        closing.push_async_callback(asyncio.to_thread, telemetry.shutdown)
        runtime = Runtime(
            settings=settings,
            db=db,
            embedder=embedder,
            ingestion=IngestionService(db, embedder, options, work),
            searcher=HybridSearcher(
                db,
                embedder,
                candidates=settings.search_candidates,
                keyword_weight=settings.search_keyword_weight,
                vector_weight=settings.search_vector_weight,
                fusion=settings.search_fusion,
            ),
            url=url,
            telemetry=telemetry,
            upload_policy=policy,
            server=server,
        )
        # after the turns settled
        closing.push_async_callback(runtime.close_clients)
        # before the traces are sent and the pool closes
        closing.push_async_callback(runtime.settle_turns, SETTLE_S)
        yield runtime


async def open_telemetry(settings: Settings, db: Database) -> Telemetry:
    """Langfuse tracing when its keys are set, and the pseudonymisation key either way."""
    pseudonyms = await load_pseudonyms(db, reveal(settings.user_hash_key))
    return await asyncio.to_thread(
        Telemetry.connect,
        pseudonyms,
        settings.langfuse_public_key,
        reveal(settings.langfuse_secret_key),
        settings.langfuse_host,
        settings.langfuse_environment,
    )
