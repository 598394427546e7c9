"""Postgres full-text literals."""

from __future__ import annotations

from storage.fulltext import tsquery_literal, tsvector_literal


def test_tsvector_and_tsquery_literals_escape_quotes() -> None:
    assert tsvector_literal(["it's", "a", "it's"]) == "'it''s':1,3 'a':2"
    assert tsquery_literal(["o'neil", "b"]) == "'o''neil' | 'b'"
