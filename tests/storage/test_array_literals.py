"""Array literals round-trip through the real Postgres exactly as the values went in."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from storage.array_literals import int_array, text_array
from storage.db import Database
from storage.models import Document
from storage.repositories import documents as docs_repo
from storage.repositories.documents import NewChunk

AWKWARD = [
    "plain",
    "",
    "NULL",
    "null",
    'say "hi"',
    "back\\slash",
    '\\"',
    "{braces},commas",
    " spaced  ",
    "它的「引號」",
    "it's",
    "line\nbreak\ttab",
    "[0.1,-2e-05]",
    None,
]


async def test_text_arrays_keep_every_string_and_null(db: Database) -> None:
    async with db.autocommit() as session:
        got = await session.execute(
            text("SELECT CAST(:values AS text[])"), {"values": text_array(AWKWARD)}
        )
        assert got.scalar_one() == AWKWARD


async def test_empty_arrays_and_integers(db: Database) -> None:
    async with db.autocommit() as session:
        got = await session.execute(
            text("SELECT CAST(:t AS text[]), CAST(:n AS int[]), CAST(:e AS int[])"),
            {"t": text_array([]), "n": int_array([3, -1, None, 0]), "e": int_array([])},
        )
        assert tuple(got.one()) == ([], [3, -1, None, 0], [])


async def test_a_text_array_casts_to_tsvectors_and_vectors(db: Database) -> None:
    async with db.autocommit() as session:
        got = await session.execute(
            text(
                "SELECT CAST(CAST(:k AS tsvector[]) AS text[]),"
                " CAST(CAST(:v AS vector[]) AS text[])"
            ),
            {"k": text_array(["'it''s':1 'a\\\\b':2", None]), "v": text_array(["[1,2.5]"])},
        )
        keywords, vectors = got.one()
        assert keywords == ["'a\\\\b':2 'it''s':1", None]
        assert vectors == ["[1,2.5]"]


async def test_a_document_with_awkward_text_is_stored_exactly(db: Database) -> None:
    # what a document's chunks carry goes in through the literals: read back unchanged
    awkward = ['say "NULL"', "C:\\forms\\", "{a,b}", "它的「表格」", ""]
    chunks = [
        NewChunk(
            text=body,
            position=n,
            page=None if n % 2 else n,
            heading=None if n == 1 else f"heading {body}",
            language="en",
            tokens=[body or "empty", "it's", "back\\slash"],
            embedding=[0.5, -0.25, 1e-7, *[0.0] * 509],  # the index's 512 dimensions
            question="NULL" if n == 2 else None,
            question_embedding=[1.0, *[0.0] * 511] if n == 2 else None,
        )
        for n, body in enumerate(awkward)
    ]
    document = _document("awkward", len(chunks), collection="internal")
    empty = _document("empty", 0)  # no collection named: the default
    async with db.transaction() as session:
        await docs_repo.add_document(session, document, chunks)
        await docs_repo.add_document(session, empty, [])
    assert document.id is not None and empty.id not in (None, document.id)
    async with db.sessions() as session:
        rows = (
            await session.execute(
                text(
                    "SELECT text, page, heading, entry_question, question_embedding::text,"
                    " embedding::text FROM chunks WHERE document_id = :id ORDER BY position"
                ),
                {"id": document.id},
            )
        ).all()
        assert [r[0] for r in rows] == awkward
        assert [r[1] for r in rows] == [0, None, 2, None, 4]
        assert [r[2] for r in rows] == [
            f"heading {b}" if n != 1 else None for n, b in enumerate(awkward)
        ]
        assert [r[3] for r in rows] == [None, None, "NULL", None, None]
        assert rows[2][4].startswith("[1,0,0,") and rows[0][4] is None
        assert rows[0][5].startswith("[0.5,-0.25,1e-07,0,")
        terms = await session.execute(
            text(
                "SELECT t.term FROM chunk_terms t JOIN chunks c ON c.id = t.chunk_id"
                " WHERE c.document_id = :id AND c.position = 1 ORDER BY 1"
            ),
            {"id": document.id},
        )
        assert list(terms.scalars()) == ["C:\\forms\\", "back\\slash", "it's"]
        stored = await session.execute(
            text("SELECT collection, chunk_count FROM documents ORDER BY title")
        )
        assert [tuple(r) for r in stored] == [("internal", 5), ("public", 0)]


def test_integers_are_integers() -> None:
    assert int_array([True and 1, 2]) == "{1,2}"
    with pytest.raises(TypeError):
        int_array([2.9])  # type: ignore[list-item]


def _document(title: str, chunks: int, **columns: str) -> Document:
    """A new document row of `chunks` chunks, named after `title`."""
    return Document(
        title=title,
        source=f"{title}.txt",
        format="txt",
        language="en",
        content_hash=f"{title}-hash",
        size_bytes=chunks,
        page_count=None,
        chunk_count=chunks,
        **columns,
    )
