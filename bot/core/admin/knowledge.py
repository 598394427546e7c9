"""The knowledge base's admin part: documents, forms and uploads, each command audited.

Chat admins act within their audience's collections; the CLI anywhere. An upload
is checked against the UploadPolicy here, once, and queued as a job.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from bot.core.admin.audit import Actor, AdminInputError, AuditLog, view_scope
from bot.core.admin.jobs import JobQueue
from bot.settings import CONSOLE_PLATFORMS
from storage import origins
from storage.db import Database
from storage.forms import FormFile, FormService, InvalidFormError, SavedForm
from storage.ingestion import IngestionService
from storage.models import Upload
from storage.repositories import admin_console as console_repo
from storage.repositories import audit as audit_repo
from storage.repositories import documents as docs_repo
from storage.repositories import uploads as uploads_repo
from storage.upload_policy import DEFAULT_COLLECTION, UploadPolicy

logger = logging.getLogger(__name__)
# why an upload was refused when its job could not be queued (shown to the uploader
# inside `upload_refused`, like the UploadPolicy's reasons)
UPLOAD_NOT_QUEUED = "the job queue could not take it, so nothing was kept; please send it again"


class Knowledge:
    """Documents, forms and uploads, for admins only (everyone may list forms)."""

    def __init__(
        self,
        db: Database,
        log: AuditLog,
        ingestion: IngestionService,
        forms: FormService,
        jobs: JobQueue | None,
        policy: UploadPolicy,
    ) -> None:
        self._db = db
        self.log = log
        self._ingestion = ingestion
        self._forms = forms
        self.jobs = jobs
        self.policy = policy

    async def list_documents(
        self, actor: Actor, collections: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Documents by title."""
        await self.log.check(actor, "docs:list", None)
        async with self._db.sessions() as session:
            docs = await docs_repo.list_documents(session, collections)
        await self.log.audit(actor, "docs:list", None, "ok")
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
        await self.log.check(actor, "docs:delete", title)
        deleted = await self._ingestion.delete(title, view_scope(actor, collections)[0])
        console = origins.console_collection(title) if deleted else None
        if console is not None:
            # the console's answers went with their document: the next answer published
            # there rebuilds it without them
            async with self._db.transaction() as session:
                await console_repo.lock_answers(session, console)
                await console_repo.withdraw_answers(session, console, actor.user_id)
        await self.log.audit(actor, "docs:delete", title, "ok" if deleted else "not_found")
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
        await self.log.check(actor, "forms:add", name)
        try:
            new = await self._forms.add(name, url, file, aliases, language, collection)
        except InvalidFormError as exc:
            await self.log.audit(actor, "forms:add", name, "failed", str(exc))
            raise
        await self.log.audit(actor, "forms:add", name, "ok", "added" if new else "replaced")
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
        await self.log.check(actor, "forms:add", name)
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
            await self.log.audit(actor, "forms:add", name, "failed", str(exc))
            raise
        done = "added" if saved.new else "replaced"
        await self.log.audit(actor, "forms:add", name, "ok", f"{done} in {saved.collection}")
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
        await self.log.check(actor, "forms:delete", name)
        deleted = await self._forms.delete(name, view_scope(actor, collections)[0])
        await self.log.audit(actor, "forms:delete", name, "ok" if deleted else "not_found")
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
        await self.log.check(actor, "upload", name)
        problem = self.policy.refusal(file_name, data, collection)
        if problem is not None or self.jobs is None:
            problem = problem or "the job queue is not running"
            await self.log.audit(actor, "upload", name, "failed", problem)
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
                await self.log.audit(
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
        await self.log.check(actor, "upload:held", str(upload_id))
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
        await self.log.check(actor, "jobs", None)
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
        await self.log.check(actor, "jobs", str(upload_id))
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
