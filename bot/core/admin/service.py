"""AdminService: the admin commands every adapter and the CLI share, each one audited.

Who is admin comes from settings (SLACK_ADMIN_USER_IDS, TELEGRAM_ADMIN_USER_IDS);
the CLI is run by the operator and is always admin. A refused action changes
nothing and is written to the audit log like an allowed one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import PurePath
from typing import Any

from bot.core.admin import gaps as gap_topics
from bot.core.admin.jobs import JobQueue
from bot.settings import CONSOLE_PLATFORMS
from storage.db import Database
from storage.forms import FormFile, FormService, InvalidFormError, SavedForm
from storage.ingestion import IngestionService
from storage.memory import AnswerMemory
from storage.models import Upload
from storage.repositories import audit as audit_repo
from storage.repositories import documents as docs_repo
from storage.repositories import handoff_reports, reports
from storage.repositories import inbox as inbox_repo
from storage.repositories import outbox as outbox_repo
from storage.repositories import uploads as uploads_repo
from storage.upload_policy import DEFAULT_COLLECTION, UploadPolicy

logger = logging.getLogger(__name__)
# why an upload was refused when its job could not be queued (shown to the uploader
# inside `upload_refused`, like the UploadPolicy's reasons)
UPLOAD_NOT_QUEUED = "the job queue could not take it, so nothing was kept; please send it again"


class NotAllowedError(PermissionError):
    """The actor is not an admin; nothing was changed."""


class AdminInputError(ValueError):
    """The request cannot be carried out as given; the message says why."""


@dataclass(frozen=True)
class Actor:
    """Who asks: platform, user id, and whether settings make them an admin."""

    platform: str
    user_id: str
    is_admin: bool


class AdminService:
    """Documents, forms, uploads and counts, for admins only."""

    def __init__(
        self,
        db: Database,
        ingestion: IngestionService,
        forms: FormService,
        jobs: JobQueue | None,
        policy: UploadPolicy,
        memory: AnswerMemory | None = None,
    ) -> None:
        self._db = db
        self._memory = memory
        self._ingestion = ingestion
        self._forms = forms
        self.jobs = jobs
        self.policy = policy

    @property
    def memory(self) -> AnswerMemory | None:
        """The answer memory (None when MEMORY_ENABLED is off)."""
        return self._memory

    async def check(self, actor: Actor, action: str, target: str | None) -> None:
        """Raise NotAllowedError (and audit the refusal) unless the actor is an admin."""
        if not actor.is_admin:
            await self.audit(actor, action, target, "refused", "not an admin")
            raise NotAllowedError(action)

    async def audit(
        self, actor: Actor, action: str, target: str | None, result: str, detail: str | None = None
    ) -> None:
        """Write one audit row in its own transaction (the desk's button presses use it too)."""
        async with self._db.transaction() as session:
            await audit_repo.audit(
                session, actor.platform, actor.user_id, action, target, result, detail
            )

    async def list_documents(
        self, actor: Actor, collections: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Documents by title."""
        await self.check(actor, "docs:list", None)
        async with self._db.sessions() as session:
            docs = await docs_repo.list_documents(session, collections)
        await self.audit(actor, "docs:list", None, "ok")
        return [
            {
                "title": d.title,
                "format": d.format,
                "language": d.language,
                "collection": d.collection,
                "chunks": d.chunk_count,
                "pages": d.page_count,
                "source": d.source,
                "url": d.url,
                "added": d.created_at.isoformat(timespec="seconds"),
            }
            for d in docs
        ]

    async def delete_document(
        self, actor: Actor, title: str, collections: Sequence[str] | None = None
    ) -> bool:
        """Delete a document by title; False when there is none.

        A chat admin deletes only in `collections` (what their audience reads): a
        document outside them is "not found" too, so the answer does not tell
        whether such a title exists. The CLI deletes anywhere.
        """
        await self.check(actor, "docs:delete", title)
        deleted = await self._ingestion.delete(title, _view_scope(actor, collections)[0])
        await self.audit(actor, "docs:delete", title, "ok" if deleted else "not_found")
        return deleted

    async def add_form(
        self,
        actor: Actor,
        name: str,
        url: str | None,
        file: FormFile | None = None,
        aliases: Sequence[str] = (),
        language: str | None = None,
        collection: str = DEFAULT_COLLECTION,
    ) -> bool:
        """Add or replace a form; True when new. InvalidFormError says what is wrong."""
        await self.check(actor, "forms:add", name)
        try:
            new = await self._forms.add(name, url, file, aliases, language, collection)
        except InvalidFormError as exc:
            await self.audit(actor, "forms:add", name, "failed", str(exc))
            raise
        await self.audit(actor, "forms:add", name, "ok", "added" if new else "replaced")
        return new

    async def save_form(
        self,
        actor: Actor,
        name: str,
        url: str | None,
        file: FormFile | None = None,
        collection: str | None = None,
        allowed: Sequence[str] | None = None,
    ) -> SavedForm:
        """Add or replace a form from chat: a replaced form keeps its collection, aliases
        and language unless `collection` says otherwise; a new one lands where the
        platform's uploads do. The resulting collection must be one of `allowed` (what
        the admin's audience reads), else FormCollectionError and nothing changes."""
        await self.check(actor, "forms:add", name)
        try:
            saved = await self._forms.save(
                name,
                url,
                file,
                None,
                None,
                collection,
                keep=True,
                default_collection=self.policy.collection_for(actor.platform),
                allowed=allowed,
            )
        except InvalidFormError as exc:
            await self.audit(actor, "forms:add", name, "failed", str(exc))
            raise
        done = "added" if saved.new else "replaced"
        await self.audit(actor, "forms:add", name, "ok", f"{done} in {saved.collection}")
        return saved

    async def list_forms(
        self, actor: Actor, collections: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Forms by name (everyone may list the forms they can read)."""
        return [
            {
                "name": f.name,
                "url": f.url,
                "aliases": f.aliases,
                "language": f.language,
                "file": f.file_name,
                "collection": f.collection,
            }
            for f in await self._forms.list(collections)
        ]

    async def delete_form(
        self, actor: Actor, name: str, collections: Sequence[str] | None = None
    ) -> bool:
        """Delete a form by name; False when there is none (or, for a chat admin, when it
        is outside `collections`: the same answer, see delete_document)."""
        await self.check(actor, "forms:delete", name)
        deleted = await self._forms.delete(name, _view_scope(actor, collections)[0])
        await self.audit(actor, "forms:delete", name, "ok" if deleted else "not_found")
        return deleted

    async def upload(
        self,
        actor: Actor,
        file_name: str,
        data: bytes,
        title: str | None = None,
        collection: str = DEFAULT_COLLECTION,
        conversation_key: str | None = None,
        language: str | None = None,
        allow_personal_data: bool = False,
    ) -> int:
        """Store an uploaded file and queue its ingestion; the upload id.

        The edge for chat uploads and `ragbot upload`: the file is checked against
        the UploadPolicy here, once; the job that ingests it trusts that check.
        A file bound for a collection citizens or guests read (`UploadPolicy.screens`)
        is held by the job if it holds personal data, unless `allow_personal_data`
        (the operator's `--allow-personal-data`).
        """
        name = self.policy.clean_name(file_name)
        await self.check(actor, "upload", name)
        problem = self.policy.refusal(file_name, data, collection)
        if problem is not None or self.jobs is None:
            problem = problem or "the job queue is not running"
            await self.audit(actor, "upload", name, "failed", problem)
            raise AdminInputError(problem)
        record = Upload(
            platform=actor.platform,
            user_id=actor.user_id,
            conversation_key=conversation_key,
            file_name=name,
            title=(title or PurePath(name).stem).strip() or name,
            collection=collection,
            language=language,
            size_bytes=len(data),
            data=data,
            status="queued",
        )
        # the row, its bytes and its job in one transaction: if queueing fails, nothing
        # is kept (no upload waiting forever for a job that never came)
        try:
            async with self._db.transaction() as session:
                upload_id = await uploads_repo.add_upload(session, record)
                await self.jobs.defer_upload(session, upload_id, allow_personal_data)
                await audit_repo.audit(
                    session, actor.platform, actor.user_id, "upload", name, "queued", record.title
                )
        except Exception as exc:
            logger.exception("could not queue upload %s", name)
            problem = UPLOAD_NOT_QUEUED
            with contextlib.suppress(Exception):  # the database may be what failed
                # the error's kind only: a database error's text can quote the file's bytes
                await self.audit(
                    actor, "upload", name, "failed", f"{problem} ({type(exc).__name__})"
                )
            raise AdminInputError(problem) from exc
        return upload_id

    async def settle_held(
        self, actor: Actor, upload_id: int, publish: bool, *, any_owner: bool = False
    ) -> Upload | None:
        """Publish a held upload anyway (queued again, unscreened) or cancel it (bytes dropped).

        Only the admin who sent it may, unless `any_owner` (the console operator,
        for deployments where no chat adapter ran beside the job worker). Audited.
        The upload as it was, or None when no such held upload. Publishing without
        a job queue raises AdminInputError and changes nothing; the upload leaves
        `held` and gets its job in one transaction, so when queueing fails it is still
        held (it can be settled once more) and the error raised.
        """
        await self.check(actor, "upload:held", str(upload_id))
        if publish and self.jobs is None:
            raise AdminInputError("publishing needs the job queue")
        platform, user_id = (None, None) if any_owner else (actor.platform, actor.user_id)
        async with self._db.transaction() as session:
            held = await uploads_repo.settle_held(
                session, upload_id, platform, user_id, publish=publish
            )
            if held is None:
                return None
            action = "upload:publish_anyway" if publish else "upload:cancelled"
            await audit_repo.audit(
                session, actor.platform, actor.user_id, action, held.file_name, "ok", held.reason
            )
            if publish:
                assert self.jobs is not None
                await self.jobs.defer_upload(session, upload_id, allow_personal_data=True)
        return held

    async def uploads(self, actor: Actor, limit: int = 10) -> list[dict[str, Any]]:
        """The newest uploads of the actor's platform (all for the CLI), newest first.

        Stranded uploads (queued or running for over a minute with no job that will
        move them on) are listed too, however old, with `stranded` true: the worker
        re-queues the queued ones; retention deletes what is left past its window.
        """
        await self.check(actor, "jobs", None)
        platform = None if actor.platform in CONSOLE_PLATFORMS else actor.platform
        async with self._db.sessions() as session:
            recent = await uploads_repo.recent_uploads(session, platform, limit)
            stuck = await uploads_repo.stranded_uploads(session, platform=platform)
        stranded = {u.id for u in stuck}
        rows = sorted({u.id: u for u in (*recent, *stuck)}.values(), key=lambda u: -u.id)
        return [
            {
                "id": u.id,
                "file": u.file_name,
                "title": u.title,
                "collection": u.collection,
                "status": u.status,
                "chunks": u.chunks,
                "reason": u.reason,
                "by": f"{u.platform}:{u.user_id}",
                "received": u.created_at.isoformat(timespec="seconds"),
                "stranded": u.id in stranded,
            }
            for u in rows
        ]

    async def upload_state(self, actor: Actor, upload_id: int) -> dict[str, Any] | None:
        """One upload's state, if the actor sent it (the CLI: any); None otherwise, so
        another sender's upload is as unknown as one that does not exist."""
        await self.check(actor, "jobs", str(upload_id))
        async with self._db.sessions() as session:
            upload = await uploads_repo.get_upload(session, upload_id)
        mine = upload is not None and (
            actor.platform in CONSOLE_PLATFORMS
            or (upload.platform, upload.user_id) == (actor.platform, actor.user_id)
        )
        if upload is None or not mine:
            return None
        return {
            "id": upload.id,
            "file": upload.file_name,
            "title": upload.title,
            "collection": upload.collection,
            "status": upload.status,
            "chunks": upload.chunks,
            "reason": upload.reason,
            "received": upload.created_at.isoformat(timespec="seconds"),
        }

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
        await self.check(actor, "stats", None)
        until = datetime.now(UTC)
        since = until - timedelta(days=days)
        collections, platform = _view_scope(actor, collections)
        async with self._db.sessions() as session:
            counts: dict[str, Any] = dict(await reports.counts(session, collections, platform))
            summary = await reports.turn_summary(session, since, platform)
            handoffs = await handoff_reports.summary(session, since, platform)
            queues = {
                **await inbox_repo.depth(session, platform),
                **await outbox_repo.counts(session, platform),
            }
        await self.audit(actor, "stats", None, "ok")
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
            "queues": queues,
        }

    async def gaps(self, actor: Actor, days: int = 30) -> dict[str, Any]:
        """What the documents did not answer in the last `days`: refused questions and
        hand-offs grouped by topic (largest, then newest, first), for admins to write."""
        await self.check(actor, "gaps", None)
        since = datetime.now(UTC) - timedelta(days=days)
        platform = _view_scope(actor, None)[1]  # a chat admin sees their platform's
        async with self._db.sessions() as session:
            items = await handoff_reports.gap_questions(session, since, platform)
        model = self._ingestion.embedder.model
        texts = [" ".join(str(i["question"]).split()) or "?" for i in items]
        vectors = await asyncio.to_thread(model.embed_documents, texts) if texts else []
        found = gap_topics.topics(items, gap_topics.cluster(vectors))
        await self.audit(actor, "gaps", None, "ok")
        return {"days": days, "platform": platform, "questions": len(items), "topics": found}

    async def memory_entries(
        self, actor: Actor, limit: int = 100, collections: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """The answer memory, newest first (empty when MEMORY_ENABLED is off).

        A chat admin sees only entries their platform's audience may read
        (`collections`) that were asked on their own platform; the CLI sees all.
        """
        await self.check(actor, "memory", "list")
        scope = _view_scope(actor, collections)
        rows = await self._memory.entries(limit, *scope) if self._memory is not None else []
        await self.audit(actor, "memory", "list", "ok")
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
        await self.check(actor, "memory forget", target)
        scope = _view_scope(actor, collections)
        removed = await self._memory.forget(entry_id, *scope) if self._memory is not None else 0
        await self.audit(actor, "memory forget", target, "ok")
        return removed

    async def traces(self, actor: Actor, last: int = 20) -> list[dict[str, Any]]:
        """The newest turn records: question as stored, answer, path, timings, errors."""
        await self.check(actor, "traces", None)
        async with self._db.sessions() as session:
            rows = await reports.recent_turns(session, last)
        await self.audit(actor, "traces", None, "ok")
        return rows


def _view_scope(
    actor: Actor, collections: Sequence[str] | None
) -> tuple[Sequence[str] | None, str | None]:
    """(collections, platform) an admin's views are limited to: none for the CLI."""
    if actor.platform in CONSOLE_PLATFORMS:
        return None, None
    return collections if collections is not None else (), actor.platform
