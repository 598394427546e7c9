"""Building ServingCores (and job queues) over the test database, as workers would."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text

from bot.app.case_renderers import asker_renderers
from bot.app.uploads import upload_policy
from bot.core.admin.audit import AuditLog
from bot.core.admin.jobs import JobQueue
from bot.core.admin.service import AdminService
from bot.core.admin.sources import Sources
from bot.core.answering.corrections import Corrections
from bot.core.assembly import build_core
from bot.core.messages import Audience, InboundMessage, Outbound, UploadOutcome
from bot.core.serving import ServingCore
from bot.settings import Settings
from bot.telemetry import Telemetry
from bot.turn.service import AnswerService
from graph.context import GraphContext
from graph.prompts import versions
from storage.db import Database
from storage.embeddings import Embedder
from storage.forms import FormFinder, FormService
from storage.ingestion import IngestionService, IngestOptions
from storage.memory import AnswerMemory
from storage.search import HybridSearcher
from storage.sources.sync import SourceSyncer
from storage.sources.web import WebLimits

DOCS = {
    "passport.md": (
        "# Passport renewal\n\nAdults renew passports at the City Service Centre.\n\n"
        "## Fees\n\nAn adult passport renewal costs 1,300 dollars and takes four working days.\n"
    ),
    "停車許可證.md": (
        "# 住宅區停車許可證\n\n設籍本市的居民可以申請住宅區停車許可證，每戶最多兩張。\n\n"
        "## 費用\n\n每張許可證每年收費新臺幣一千二百元。\n"
    ),
}


def settings_for_tests(**values: Any) -> Settings:
    """Settings for tests: admins U-ADMIN (Slack) and 42 (Telegram), no .env file."""
    defaults: dict[str, Any] = {
        "SLACK_ADMIN_USER_IDS": "U-ADMIN",
        "TELEGRAM_ADMIN_USER_IDS": "42",
        "RATE_LIMIT_PER_MINUTE": 100,
    }
    return Settings(_env_file=None, **{**defaults, **values})  # type: ignore[call-arg]


@dataclass
class Worker:
    """One simulated worker: its own engine, services and core."""

    db: Database
    core: ServingCore
    jobs: JobQueue
    outcomes: list[UploadOutcome] = field(default_factory=list)
    notified: asyncio.Event = field(default_factory=asyncio.Event)


async def make_worker(
    url: str,
    embedder: Embedder,
    settings: Settings,
    *,
    open_jobs: bool = True,
    llm: Any = None,
    telemetry: Telemetry | None = None,
    memory: bool = False,
    corrections: bool = False,
) -> Worker:
    """A core with its own engine on `url`, like a second process would have (`llm`: a chat
    model for the graph; None is no-LLM mode; `telemetry`: Langfuse tracing;
    `corrections`: the queue carries them, as the runtime's does)."""
    db = Database.connect(url)
    policy = upload_policy(settings)  # as the runtime builds it
    ingestion = IngestionService(db, embedder, IngestOptions(policy=policy))
    searcher = HybridSearcher(db, embedder)
    context = GraphContext(
        searcher=searcher,
        forms=FormFinder(db),
        embedder=embedder.model,
        screen_embedder=embedder.model,  # as the runtime does with the local model
        llm=llm,
        llm_timeout=5.0,
        prompt_versions=versions() if llm is not None else {},  # as the runtime does
        handoff=settings.handoff_contacts(),  # who a refusal names, as the runtime passes it
    )
    remembered = AnswerMemory(db, embedder) if memory else None
    answers = AnswerService(db, context, telemetry=telemetry, memory=remembered)
    syncer = SourceSyncer(db, ingestion, WebLimits(requests_per_second=1000))
    sources = Sources(db, AuditLog(db), syncer)  # as the runtime hands the queue its sources
    jobs = JobQueue(
        url,
        db,
        ingestion,
        telemetry,
        sources=sources,
        answers=lambda: answers,
        # as the runtime: an asker offered a new answer, unless CORRECTIONS_ENABLED=false
        renderers=asker_renderers() if settings.corrections_enabled else None,
        corrections=(
            Corrections(db, settings, lambda: answers, asker_renderers()) if corrections else None
        ),
    )
    if open_jobs:
        await jobs.open()
    forms = FormService(db, policy.max_bytes)
    admin = AdminService.build(db, ingestion, forms, jobs, policy, memory=remembered)
    worker = Worker(db, build_core(db, answers, admin, settings), jobs)

    async def notify(outcome: UploadOutcome) -> None:
        worker.outcomes.append(outcome)
        worker.notified.set()

    for platform in ("slack", "telegram", "console"):
        worker.core.register_notifier(platform, notify)
    return worker


async def close_worker(worker: Worker) -> None:
    """Close what make_worker opened."""
    await worker.core.close()
    if worker.jobs.app.connector._async_pool is not None:  # type: ignore[attr-defined]
        await worker.jobs.close()
    await worker.db.dispose()


def message(
    text: str,
    *,
    platform: str = "slack",
    user: str = "U1",
    conv: str = "C1",
    delivery: str | None = None,
    **extra: Any,
) -> InboundMessage:
    """An inbound message with a fresh delivery id unless given.

    Slack messages come from a home-team employee unless `audience=` says otherwise
    (the adapter learns this; a message without facts would be a guest's).
    """
    import uuid

    if platform == "slack":
        extra.setdefault("audience", Audience(guest=False))
    return InboundMessage(
        platform=platform,
        delivery_id=delivery or uuid.uuid4().hex,
        conversation_key=conv,
        user_id=user,
        text=text,
        **extra,
    )


async def collect(events: AsyncIterator[Outbound]) -> list[Outbound]:
    """Every event of one delivery, as an adapter that renders them all."""
    return [event async for event in events]


def only(events: list[Outbound], kind: type) -> list[Any]:
    """The events of one type."""
    return [e for e in events if isinstance(e, kind)]


@contextlib.asynccontextmanager
async def jobs_running(worker: Worker) -> AsyncIterator[None]:
    """The worker's job queue runs while the block does; stopped (gracefully) after."""
    run = asyncio.create_task(worker.jobs.run_worker(concurrency=1, grace_s=1))
    try:
        yield
    finally:
        run.cancel()
        await asyncio.gather(run, return_exceptions=True)


async def until(done: Callable[[], bool], timeout: float = 30) -> None:
    """Wait until `done()` holds (polled), or fail."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not done():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.05)


async def until_settled(db: Database, timeout: float = 30) -> None:
    """Wait until nothing is left to do: every accepted message answered (no inbox row
    claimed) and every send made or given up (no outbox row pending or sending). From
    then on nothing more is shown unless something new arrives, so "no second answer"
    is checked at the moment it could no longer come, not after a guessed pause."""
    deadline = asyncio.get_running_loop().time() + timeout
    busy_rows = text(
        "SELECT (SELECT count(*) FROM processed_events WHERE status = 'claimed')"
        " + (SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending'))"
    )
    while True:
        async with db.sessions() as session:
            busy = (await session.execute(busy_rows)).scalar_one()
        if not busy:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting: {busy} inbox or outbox rows at work")
        await asyncio.sleep(0.05)


def minute_left_for(seconds: float) -> float:
    """How long to wait for a rate-limit window (a calendar minute) with `seconds` left:
    0 when this one has them."""
    left = 60 - time.time() % 60
    return left + 0.2 if left < seconds else 0.0


def wait_window_with_time_left(seconds: float) -> None:
    """`window_with_time_left` for a test without an event loop (a sync HTTP client)."""
    time.sleep(minute_left_for(seconds))


async def window_with_time_left(seconds: float) -> None:
    """Wait, if need be, for a rate-limit window (a calendar minute) with `seconds` left:
    a phase counting one sender's messages must not straddle two windows (a slow run
    once let /start through as the first message of the next minute)."""
    await asyncio.sleep(minute_left_for(seconds))


async def last_outcome(db: Database) -> str | None:
    """The outcome stored with the newest answer (answered, refused, stopped…)."""
    async with db.sessions() as session:
        found = await session.scalar(
            text(
                "SELECT details->'trace'->>'outcome' FROM messages WHERE role = 'assistant'"
                " ORDER BY id DESC LIMIT 1"
            )
        )
    return None if found is None else str(found)


async def not_due(db: Database) -> None:
    """A new source is due at once: put its schedule off, so that the queue's minute job
    does not sync it before (or instead of) the sync asked for in chat."""
    async with db.transaction() as session:
        await session.execute(text("UPDATE sources SET next_sync_at = now() + interval '1 day'"))
