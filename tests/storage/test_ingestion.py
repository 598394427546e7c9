"""Ingestion on real Postgres: formats, dedupe, atomic replace, bad files."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import text

from storage.chunking import TextChunk
from storage.db import Database
from storage.embeddings import Embedder
from storage.ingestion import (
    ADDED,
    FAILED,
    REPLACED,
    UNCHANGED,
    IngestionService,
    IngestOptions,
    collect_files,
)
from storage.models import Document
from storage.origins import CASE, FILE
from storage.repositories import documents as docs_repo
from storage.upload_policy import UploadPolicy
from tests.support import files, hostile_files


async def _chunk_texts(db: Database, title: str) -> list[str]:
    async with db.sessions() as s:
        rows = await s.execute(
            text(
                "SELECT c.text FROM chunks c JOIN documents d ON d.id = c.document_id"
                " WHERE d.title = :t ORDER BY c.position"
            ),
            {"t": title},
        )
        return [r[0] for r in rows]


async def _stats_consistent(db: Database) -> bool:
    """The keyword statistics equal a recount from the stored chunks and their postings
    (each chunk's postings hold all its tokens)."""
    async with db.sessions() as s:
        diff = await s.execute(
            text(
                "SELECT (SELECT count(*) FROM keyword_terms k FULL JOIN (SELECT term,"
                " count(*) AS df FROM chunk_terms GROUP BY term) p USING (term)"
                " WHERE p.df IS DISTINCT FROM k.df) + (SELECT count(*) FROM chunks c"
                " WHERE c.token_count <> (SELECT coalesce(sum(t.tf), 0) FROM chunk_terms t"
                " WHERE t.chunk_id = c.id))"
            )
        )
        meta = (
            await s.execute(
                text(
                    "SELECT m.chunk_count = (SELECT count(*) FROM chunks) AND m.token_total ="
                    " (SELECT coalesce(sum(token_count), 0) FROM chunks) FROM index_meta m"
                )
            )
        ).scalar_one()
        return diff.scalar_one() == 0 and bool(meta)


async def test_every_format_is_ingested(
    tmp_path: Path, ingestion: IngestionService, db: Database
) -> None:
    (tmp_path / "guide.pdf").write_bytes(files.make_pdf(["Bulky waste pickup.", "Call 1999."]))
    (tmp_path / "permits.docx").write_bytes(files.make_docx("Parking", ["Permits cost 1,200."]))
    (tmp_path / "recycling.html").write_text(files.HTML)
    (tmp_path / "垃圾分類.md").write_text(files.MARKDOWN)
    (tmp_path / "dogs.txt").write_text(files.TEXT)
    results = [await ingestion.ingest_path(p) for p in collect_files([tmp_path])]
    assert {r.status for r in results} == {ADDED}, results
    assert sorted(r.title or "" for r in results) == sorted(
        ["guide", "permits", "recycling", "垃圾分類", "dogs"]
    )
    async with db.sessions() as s:
        pages = (
            await s.execute(text("SELECT DISTINCT page FROM chunks WHERE page IS NOT NULL"))
        ).all()
        langs: dict[str, str] = dict(
            (await s.execute(text("SELECT title, language FROM documents"))).all()
        )
    assert sorted(p[0] for p in pages) == [1, 2]
    assert langs["垃圾分類"] == "zh-hant" and langs["dogs"] == "en"
    assert await _stats_consistent(db)


async def test_same_content_twice_is_stored_once(
    tmp_path: Path, ingestion: IngestionService, db: Database
) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "copy-of-a.txt"
    a.write_text(files.TEXT)
    b.write_text(files.TEXT)
    first, second = await ingestion.ingest_path(a), await ingestion.ingest_path(b)
    assert (first.status, second.status) == (ADDED, UNCHANGED)
    assert "same content as 'a'" in (second.reason or "")
    async with db.sessions() as s:
        assert (await s.execute(text("SELECT count(*) FROM documents"))).scalar_one() == 1


async def test_same_title_new_content_replaces_atomically(
    ingestion: IngestionService, db: Database
) -> None:
    old = "\n\n".join(f"Old rule number {i}: pets stay on a leash." for i in range(60))
    new = "\n\n".join(f"New rule number {i}: pets may run free in zone B." for i in range(60))
    assert (await ingestion.ingest_bytes("rules.txt", old.encode())).status == ADDED
    seen: list[set[str]] = []
    done = asyncio.Event()

    async def reader() -> None:
        while not done.is_set():
            texts = await _chunk_texts(db, "rules")
            seen.append({"old" if "Old rule" in t else "new" for t in texts})
            await asyncio.sleep(0)

    task = asyncio.create_task(reader())
    result = await ingestion.ingest_bytes("rules.txt", new.encode())
    done.set()
    await task
    assert result.status == REPLACED
    assert all(len(kinds) == 1 for kinds in seen), "a reader saw half a document"
    assert all("New rule" in t for t in await _chunk_texts(db, "rules"))
    async with db.sessions() as s:
        assert (await s.execute(text("SELECT count(*) FROM documents"))).scalar_one() == 1
    assert await _stats_consistent(db)


async def test_bad_files_are_reported_and_others_still_go_in(
    tmp_path: Path, ingestion: IngestionService, db: Database
) -> None:
    (tmp_path / "good.txt").write_text(files.TEXT)
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 nonsense")
    (tmp_path / "locked.pdf").write_bytes(files.make_encrypted_pdf())
    (tmp_path / "empty.md").write_text("")
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n")  # a PNG's signature, then nothing
    (tmp_path / "photo.heic").write_bytes(b"\x00\x00\x00\x18ftypheic")
    (tmp_path / "huge.txt").write_text("big file. " * 30_000)
    results = {
        Path(r.source).name: r
        for r in [await ingestion.ingest_path(p) for p in collect_files([tmp_path])]
    }
    assert results["good.txt"].status == ADDED
    reasons: dict[str, str] = {}
    for name, r in results.items():
        if r.status == FAILED:
            assert r.reason is not None, name  # a failure says why
            reasons[name] = r.reason
    failed = {"broken.pdf", "locked.pdf", "empty.md", "image.png", "photo.heic", "huge.txt"}
    assert set(reasons) == failed
    assert "corrupt" in reasons["broken.pdf"]
    assert "encrypted" in reasons["locked.pdf"]
    assert "empty" in reasons["empty.md"]
    assert "corrupt" in reasons["image.png"]  # images are read (OCR): this one is broken
    assert "unsupported" in reasons["photo.heic"]
    assert "limit" in reasons["huge.txt"]
    async with db.sessions() as s:
        titles = [r[0] for r in await s.execute(text("SELECT title FROM documents"))]
    assert titles == ["good"]


async def test_delete_removes_chunks_and_statistics(
    ingestion: IngestionService, db: Database
) -> None:
    await ingestion.ingest_bytes("a.txt", files.TEXT.encode())
    await ingestion.ingest_bytes("b.md", files.MARKDOWN.encode())
    assert await ingestion.delete("a") is True
    assert await ingestion.delete("a") is False
    assert await _chunk_texts(db, "a") == []
    assert await _stats_consistent(db)


async def test_concurrent_ingests_of_one_title_or_one_content_give_results_not_errors(
    db: Database, ingestion: IngestionService
) -> None:
    """Two workers ingesting the same new title, or the same bytes under two names, at once."""
    same_title = await asyncio.gather(
        ingestion.ingest_bytes("notice.txt", b"The office opens at nine."),
        ingestion.ingest_bytes("notice.txt", b"The office opens at ten."),
    )
    assert sorted(r.status for r in same_title) == [ADDED, REPLACED]
    same_bytes = await asyncio.gather(
        ingestion.ingest_bytes("a.txt", b"Libraries close on public holidays."),
        ingestion.ingest_bytes("b.txt", b"Libraries close on public holidays."),
    )
    assert sorted(r.status for r in same_bytes) == [ADDED, UNCHANGED]
    async with db.sessions() as s:
        titles = sorted((await s.execute(text("SELECT title FROM documents"))).scalars())
    assert len([t for t in titles if t in ("a", "b")]) == 1 and "notice" in titles
    assert await _stats_consistent(db)


async def test_document_links_come_from_ingest_or_the_html_canonical_url(
    ingestion: IngestionService, searcher
) -> None:  # type: ignore[no-untyped-def]
    page = (
        b'<html><head><link rel="canonical" href="https://city.example.org/permits"></head>'
        b"<body><h1>Permits</h1><p>Street party permits are free of charge.</p></body></html>"
    )
    assert (await ingestion.ingest_bytes("permits.html", page)).status == ADDED
    note = b"Dog licences cost 20 dollars a year."
    given = await ingestion.ingest_bytes("dogs.txt", note, url="https://city.example.org/dogs")
    assert given.status == ADDED
    hits = {h.document: h.url for h in await searcher.search("street party permit dog licence")}
    assert hits == {
        "permits": "https://city.example.org/permits",
        "dogs": "https://city.example.org/dogs",
    }


@pytest.fixture(scope="module")
def hostile() -> list[tuple[str, bytes, str]]:
    return hostile_files.hostile_files(big=False)


async def test_hostile_files_fail_with_their_reason_and_nothing_is_half_stored(
    hostile: list[tuple[str, bytes, str]], db: Database, embedder: Embedder
) -> None:
    # limits as served (20 MB files), not the small test default
    service = IngestionService(
        db, embedder, IngestOptions(policy=UploadPolicy(max_bytes=20 * 1024 * 1024))
    )
    results = await asyncio.gather(*(service.ingest_bytes(n, d) for n, d, _ in hostile))
    for (name, _, reason), result in zip(hostile, results, strict=True):
        assert result.status == FAILED, name
        assert reason in (result.reason or ""), (name, result.reason)
        assert "\x1b" not in result.source and "\u202e" not in result.source
    async with db.sessions() as s:
        assert (await s.execute(text("SELECT count(*) FROM documents"))).scalar_one() == 0
        assert (await s.execute(text("SELECT count(*) FROM chunks"))).scalar_one() == 0
    assert await _stats_consistent(db)
    honest = await service.ingest_bytes("dogs.txt", files.TEXT.encode())
    assert honest.status == ADDED


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../../x.md", "folder parts"),
        ("..\\..\\x.md", "folder parts"),
        ("x\x00.md", "control characters"),
        ("..", "folder parts"),
    ],
)
async def test_uploaded_file_names_with_folders_or_control_characters_are_refused(
    name: str, reason: str, ingestion: IngestionService, db: Database
) -> None:
    result = await ingestion.ingest_bytes(name, b"# Title\n\nSome honest text.")
    assert result.status == FAILED
    assert reason in (result.reason or "")
    async with db.sessions() as s:
        assert (await s.execute(text("SELECT count(*) FROM documents"))).scalar_one() == 0


async def test_titles_from_captions_are_stored_clean(ingestion: IngestionService) -> None:
    result = await ingestion.ingest_bytes("a.md", b"# T\n\nText.", title="Staff\x1b[2J  handbook\n")
    assert result.title == "Staff[2J handbook"


async def test_two_replacements_at_once_do_not_deadlock(
    ingestion: IngestionService, db: Database
) -> None:
    # A replacement counts the old document's terms out, then the new one's in. Two at
    # once: B's count-out takes "harbour"; A's count-in needs it. Each must wait for the
    # index_meta row before touching any term, or A waits for B while B waits for A.
    await ingestion.ingest_bytes("a.txt", b"Opening hours of the library.")
    await ingestion.ingest_bytes("b.txt", b"Harbour ferry timetable.")
    new_a = await ingestion.embed_pieces(
        [TextChunk("Harbour ferry tickets at the library.", 0, None, None)], "en", "a"
    )
    b_counted_out = asyncio.Event()

    async def replace_b() -> None:
        async with db.transaction() as session:
            old = await docs_repo.find_by_title(session, "b", lock=True)
            assert old is not None
            b_counted_out.set()  # from here B may wait for A's transaction
            await docs_repo.delete_document(session, old)

    async with db.transaction() as session:
        old = await docs_repo.find_by_title(session, "a", lock=True)
        assert old is not None
        await docs_repo.delete_document(session, old)
        other = asyncio.create_task(replace_b())
        await b_counted_out.wait()
        await asyncio.sleep(0.3)  # B is at its count-out now (or waiting before it)
        document = Document(
            title="a",
            source="a.txt",
            format="txt",
            language="en",
            content_hash="new-a",
            size_bytes=1,
            page_count=None,
            chunk_count=1,
            collection="public",
        )
        await session.flush()
        await docs_repo.add_document(session, document, new_a)
    await asyncio.wait_for(other, 5)  # B went on after A: no deadlock error in either
    assert await _stats_consistent(db)


async def test_a_staff_answer_and_a_file_never_replace_each_other(
    ingestion: IngestionService, db: Database
) -> None:
    """Case titles are kept for staff answers from hand-off cases; a document replaces one
    of the same title only when both have the same origin (storage.origins)."""
    faq = b"Q: Where do I register my dog?\nA: At any district animal hospital.\n"
    added = await ingestion.ingest_bytes("handoff-case-5.md", faq, "Staff answer #5", origin=CASE)
    assert added.status == "added"
    # no file may take a case's title, in any spelling
    for title in ("Staff answer #5", "staff  answer #6", " STAFF ANSWER #x"):
        taken = await ingestion.ingest_bytes("x.md", b"official page", title)
        assert taken.status == "failed" and "kept for staff answers" in str(taken.reason)
    # a staff answer's title is always its case's, never the asker's words
    official = await ingestion.ingest_bytes("passport.md", b"Passport renewal: 1,300.")
    assert official.status == "added"
    forged = await ingestion.ingest_bytes("handoff-case-6.md", faq + b"x", "passport", origin=CASE)
    assert forged.status == "failed"
    async with db.sessions() as session:
        rows = (await session.execute(text("SELECT title, origin FROM documents"))).all()
    assert {title: origin for title, origin in rows} == {"Staff answer #5": CASE, "passport": FILE}
