"""Ingestion: file → text blocks → chunks → embeddings → one transaction per document."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from storage import origins
from storage.chunking import Block, TextChunk, chunk_blocks, faq_blocks
from storage.db import Database
from storage.embeddings import Embedder
from storage.filenames import clean_title, display_name
from storage.ingest_work import IngestWork, IngestWorkerError
from storage.loaders import UnreadableFileError, detect_format, load_blocks
from storage.models import Document
from storage.repositories import corrections as corrections_repo
from storage.repositories import documents as docs_repo
from storage.repositories.documents import NewChunk
from storage.sandbox import SANDBOXED_FORMATS, ParseLimits
from storage.scans import no_text_found, unread_note
from storage.upload_policy import DEFAULT_COLLECTION, UploadPolicy, collection_problem
from textkit.personal_data import Findings, scan
from textkit.scripts import LANGUAGES, detect_language

ADDED, REPLACED, UNCHANGED, FAILED = "added", "replaced", "unchanged", "failed"
HELD = "held"  # personal data found in a document bound for `public`: nothing stored


logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class IngestResult:
    """What happened to one file."""

    source: str
    status: str
    title: str | None = None
    chunks: int = 0
    reason: str | None = None
    findings: Findings | None = None  # HELD: the personal data found (masked)


@dataclass(frozen=True)
class IngestOptions:
    """Limits and chunking parameters, from settings."""

    policy: UploadPolicy = field(default_factory=UploadPolicy)
    chunk_size: int = 500
    chunk_overlap: int = 80
    batch_size: int = 32
    parse: ParseLimits = field(default_factory=ParseLimits)


def index_text(title: str, heading: str | None, body: str) -> str:
    """What gets embedded and keyword-indexed for a chunk: its text under its titles.

    A section's chunk ("Fees: 1,300 dollars") rarely names its subject; the
    document title and heading put it back, for both search sides.
    """
    context = [title] if title else []
    if heading and heading != title:
        context.append(heading)
    return "\n".join([*context, body])


@dataclass(frozen=True)
class _Loaded:
    """A parsed file: text blocks, page count, link, and what an admin is told about
    pages OCR could not read (None when every page was read)."""

    blocks: list[Block]
    pages: int | None
    url: str | None
    note: str | None = None


async def _load(
    data: bytes, fmt: str, url: str | None, limits: ParseLimits, work: IngestWork
) -> _Loaded:
    """The file's text blocks, page count, and link (an HTML page's canonical URL if none).

    Plain text and Markdown are decoded here (bounded, linear work); formats
    with decompressing parsers go to the sandboxed parser process. A PDF's pages
    without a text layer are OCR'd in a second one, under the OCR limits.
    """
    if fmt not in SANDBOXED_FORMATS:
        blocks, pages = await asyncio.to_thread(load_blocks, data, fmt)
        return _Loaded(blocks, pages, url)
    parsed = await work.parse(data, fmt, limits)
    blocks, unread = parsed.blocks, parsed.unread
    if parsed.scanned:
        read = await work.parse(data, "ocr-pdf", limits, parsed.scanned)
        blocks = sorted([*blocks, *read.blocks], key=lambda b: b.page or 0)
        unread = read.unread
        if not blocks:
            raise UnreadableFileError(no_text_found("pdf", parsed.pages))
    return _Loaded(blocks, parsed.pages, url or parsed.url, unread_note(unread))


def split_document(
    blocks: list[Block], size: int, overlap: int, language: str | None
) -> tuple[list[TextChunk], str]:
    """A document's chunks and its language (`language` when given, else detected)."""
    pieces = chunk_blocks(faq_blocks(blocks), size, overlap)
    return pieces, language or detect_language(" ".join(p.text for p in pieces[:20]))


def collect_files(paths: Iterable[Path]) -> list[Path]:
    """Files named directly, and every non-hidden file below named folders, sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(
                p
                for p in sorted(path.rglob("*"))
                if p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
        else:
            found.append(path)
    return found


class IngestionService:
    """Adds, replaces and skips documents; each document is one transaction."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        options: IngestOptions,
        work: IngestWork | None = None,
    ) -> None:
        self._db = db
        self._embedder = embedder
        self._options = options
        # the CPU work's place: worker processes in a server, threads by default
        self._work = work or IngestWork(embedder, batch_size=options.batch_size)

    @property
    def embedder(self) -> Embedder:
        """The embedder passages are indexed with (admin reports cluster questions with it)."""
        return self._embedder

    @property
    def policy(self) -> UploadPolicy:
        """The upload policy this service ingests under (which collections are screened)."""
        return self._options.policy

    async def ingest_path(
        self,
        path: Path,
        title: str | None = None,
        language: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        collection: str = DEFAULT_COLLECTION,
        url: str | None = None,
        *,
        hold_personal_data: bool = False,
    ) -> IngestResult:
        """Ingest one file from disk; errors come back as a FAILED result, never raised.

        Its size on disk is checked before it is read, then ingest_bytes checks the rest.
        """
        try:
            size = path.stat().st_size
        except OSError as exc:
            return IngestResult(str(path), FAILED, reason=f"cannot read the file ({exc.strerror})")
        too_large = self._too_large(size)
        if too_large is not None:
            return IngestResult(str(path), FAILED, reason=too_large)
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except OSError as exc:
            return IngestResult(str(path), FAILED, reason=f"cannot read the file ({exc.strerror})")
        return await self.ingest_bytes(
            path.name,
            data,
            title=title,
            language=language,
            source=str(path),
            on_progress=on_progress,
            collection=collection,
            url=url,
            hold_personal_data=hold_personal_data,
        )

    async def ingest_bytes(
        self,
        filename: str,
        data: bytes,
        title: str | None = None,
        language: str | None = None,
        source: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        collection: str = DEFAULT_COLLECTION,
        url: str | None = None,
        *,
        hold_personal_data: bool = False,
        origin: str = origins.FILE,
        replaces: int | None = None,
    ) -> IngestResult:
        """Ingest a file's bytes from outside under `title` (default: file name sans extension).

        The edge for `ragbot ingest` and seeding: the file is checked against the
        UploadPolicy here, once. `url` is where readers can find the document (an
        HTML page's canonical URL when not given); citations link to it.
        """
        shown = display_name(source or filename)
        policy = self._options.policy
        problem = policy.name_problem(filename)
        if problem is not None:
            return IngestResult(shown, FAILED, reason=problem)
        title = clean_title(title or Path(filename).stem)
        collection = collection.strip()
        problem = collection_problem(collection)
        if problem is None and language is not None and language not in LANGUAGES:
            problem = f"unknown language {language!r}"
        problem = problem or self._too_large(len(data))
        if problem is not None:
            return IngestResult(shown, FAILED, title, reason=problem)
        return await self.ingest_accepted(
            filename,
            data,
            title,
            language,
            source,
            on_progress,
            collection,
            url,
            hold_personal_data=hold_personal_data,
            origin=origin,
            replaces=replaces,
        )

    async def ingest_accepted(
        self,
        filename: str,
        data: bytes,
        title: str | None = None,
        language: str | None = None,
        source: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        collection: str = DEFAULT_COLLECTION,
        url: str | None = None,
        *,
        hold_personal_data: bool = False,
        replace_elsewhere: bool = True,
        origin: str = origins.FILE,
        replaces: int | None = None,
    ) -> IngestResult:
        """Ingest a file an edge already accepted under the UploadPolicy (the upload job).

        Nothing the policy covers is checked again; the file is still parsed in the
        sandbox with its limits, which protect this process from what is inside.
        `hold_personal_data`: when the parsed text holds personal data, store
        nothing and return HELD with what was found. `replace_elsewhere=False` (an
        upload from chat or the HTTP API, whose sender may change only the collection
        it names): a document of the same title in another collection is neither
        replaced nor named. `origin` (storage.origins): a file, or a staff answer from a
        hand-off case; case titles are kept for the latter, and a document replaces one
        of the same title only when both have the same origin. `replaces`: the id of the
        document this one is a new version of (a synced page whose title changed), replaced
        in the same transaction when no document has the new title.
        """
        source = display_name(source or filename)
        title = clean_title(title or Path(filename).stem)
        problem = origins.title_problem(title, origin)
        if problem is not None:
            return IngestResult(source, FAILED, title, reason=problem)
        try:
            fmt = detect_format(filename)
            digest = hashlib.sha256(data).hexdigest()
            async with self._db.autocommit() as session:  # one statement, no transaction
                same = await docs_repo.find_by_hash(session, digest)
            if same is not None:
                if not replace_elsewhere and same.collection != collection:
                    reason = "the same content is already stored in another collection"
                    return IngestResult(source, FAILED, title, reason=reason)
                return IngestResult(
                    source,
                    UNCHANGED,
                    same.title,
                    same.chunk_count,
                    reason=f"same content as {same.title!r}",
                )
            loaded = await _load(data, fmt, url, self._options.parse, self._work)
            blocks, pages, url = loaded.blocks, loaded.pages, loaded.url
        except UnreadableFileError as exc:
            return IngestResult(source, FAILED, title, reason=str(exc))
        try:
            if hold_personal_data:
                # the title, file name and page address are stored and shown too
                # (王小明_A123456789.pdf, a canonical URL with ?email=...)
                blocks_seen = [(b.text, b.page, b.heading) for b in blocks]
                titles = (title, filename, *([url] if url else []))
                findings = await self._work.run(scan, blocks_seen, titles)
                if findings is not None:
                    reason = f"personal data found ({findings.summary()})"
                    return IngestResult(source, HELD, title, reason=reason, findings=findings)
            pieces, doc_language = await self._work.run(
                split_document,
                blocks,
                self._options.chunk_size,
                self._options.chunk_overlap,
                language,
            )
            chunks = await self._embed(pieces, doc_language, title, on_progress)
        except IngestWorkerError as exc:  # nothing was stored: the file can be sent again
            return IngestResult(source, FAILED, title, reason=f"{exc}; try again")
        document = Document(
            title=title,
            source=source,
            format=fmt,
            language=doc_language,
            content_hash=digest,
            size_bytes=len(data),
            page_count=pages,
            chunk_count=len(chunks),
            collection=collection,
            url=url,
            origin=origin,
        )
        async with self._db.transaction() as session:
            # Two ingests of the same title or the same bytes at once: the second
            # waits here, then sees the first one's document instead of a conflict.
            # The index lock in share mode: no reindex swap until this commits, so the
            # embedder checked next is still the index's when the chunks land.
            await docs_repo.lock_keys(
                session,
                [f"doc-hash:{digest}", f"doc-title:{title}"],
                shared=[docs_repo.INDEX_WRITES],
            )
            stale = self.stale_embedder(await docs_repo.index_model(session))
            if stale is not None:
                return IngestResult(source, FAILED, title, reason=stale)
            same, old = await docs_repo.find_same(session, digest, title)
            if old is None and replaces is not None:
                old = await docs_repo.find_by_id(session, replaces, lock=True)
            if same is not None:
                return IngestResult(source, UNCHANGED, title, len(chunks), reason="added meanwhile")
            problem = None if old is None else origins.replace_problem(origin, old.origin)
            if problem is not None:  # a staff answer never replaces a file, nor the reverse
                return IngestResult(source, FAILED, title, reason=problem)
            if old is not None and not replace_elsewhere and old.collection != collection:
                reason = "a document with this title is in another collection: choose another title"
                return IngestResult(source, FAILED, title, reason=reason)
            if old is not None:
                await corrections_repo.document_changed(session, old, corrections_repo.REPLACED)
                await docs_repo.delete_document(session, old)
                await session.flush()
            await docs_repo.add_document(session, document, chunks)
        status = REPLACED if old else ADDED
        return IngestResult(source, status, title, len(chunks), reason=loaded.note)

    async def personal_data(
        self, filename: str, data: bytes, title: str | None = None
    ) -> Findings | None:
        """The personal data in a file's title, name and text (parsed as ingestion parses
        it), or None.

        A file that cannot be parsed has none to report: ingesting it fails anyway.
        """
        try:
            loaded = await _load(
                data, detect_format(filename), None, self._options.parse, self._work
            )
        except UnreadableFileError:
            return None
        blocks, url = loaded.blocks, loaded.url
        titles = (clean_title(title or Path(filename).stem), filename, *([url] if url else []))
        blocks_seen = [(b.text, b.page, b.heading) for b in blocks]
        try:
            return await self._work.run(scan, blocks_seen, titles)
        except IngestWorkerError:  # scanned again where it is ingested (the upload job)
            logger.warning("the personal-data pre-check of %s did not run: worker died", filename)
            return None

    async def embed_pieces(
        self, pieces: list[TextChunk], language: str, title: str
    ) -> list[NewChunk]:
        """Chunks ready to store: embedded and tokenised exactly as ingestion does."""
        return await self._embed(pieces, language, title, None)

    async def _embed(
        self,
        pieces: list[TextChunk],
        language: str,
        title: str,
        on_progress: Callable[[int, int], None] | None,
    ) -> list[NewChunk]:
        out: list[NewChunk] = []
        size = self._options.batch_size
        for start in range(0, len(pieces), size):
            batch = pieces[start : start + size]
            texts = [index_text(title, p.heading, p.text) for p in batch]
            (vectors, tokens), asked = await asyncio.gather(
                self._work.embed(texts), self._question_vectors(batch)
            )
            for piece, words, vector in zip(batch, tokens, vectors, strict=True):
                out.append(
                    NewChunk(
                        piece.text,
                        piece.position,
                        piece.page,
                        piece.heading,
                        language,
                        words,
                        vector,
                        piece.question,
                        asked.get(piece.question) if piece.question else None,
                    )
                )
            if on_progress:
                on_progress(len(out), len(pieces))
        return out

    async def _question_vectors(self, batch: list[TextChunk]) -> dict[str, list[float]]:
        """Each FAQ entry question of the batch embedded once (an entry's chunks share it)."""
        questions = list(dict.fromkeys(p.question for p in batch if p.question))
        if not questions:
            return {}
        vectors, _ = await self._work.embed(questions)
        return dict(zip(questions, vectors, strict=True))

    def stale_embedder(self, index_model: str | None) -> str | None:
        """Why this process may not add vectors: the index (built with `index_model`) was
        re-embedded by another one (None: it may)."""
        if index_model in (None, self._embedder.model_id):
            return None
        return (
            f"the knowledge base is now embedded with {index_model} (`ragbot reindex`"
            f" ran) but this process uses {self._embedder.model_id}: restart it with the"
            " matching EMBEDDING_* settings"
        )

    def _too_large(self, size: int) -> str | None:
        """The policy's size refusal, naming the setting for the operator who runs ingest."""
        problem = self._options.policy.size_problem(size)
        return f"{problem} (MAX_FILE_MB)" if problem is not None else None

    async def delete(self, title: str, collections: Sequence[str] | None = None) -> bool:
        """Delete a document by title; False when there is none (in `collections`, if given)."""
        async with self._db.transaction() as session:
            await docs_repo.lock_keys(session, [f"doc-title:{title}"])
            doc = await docs_repo.find_by_title(session, title, lock=True)
            if doc is None or (collections is not None and doc.collection not in collections):
                return False
            await corrections_repo.document_changed(session, doc, corrections_repo.REMOVED)
            await docs_repo.delete_document(session, doc)
            return True
