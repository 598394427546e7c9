"""Array literals round-trip through the real Postgres exactly as the values went in."""

from __future__ import annotations

from sqlalchemy import text

from storage.array_literals import int_array, text_array
from storage.db import Database

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
