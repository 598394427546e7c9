"""Postgres full-text literals."""

from __future__ import annotations

from storage.fulltext import tsvector_literal


def test_tsvector_literal_escapes_quotes() -> None:
    assert tsvector_literal(["it's", "a", "it's"]) == "'it''s':1,3 'a':2"
