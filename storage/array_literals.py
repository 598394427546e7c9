"""Postgres array literals built here, for the long arrays a document's insert sends.

psycopg dumps a Python list in a Python loop, one dumper call and one regular
expression per element, and a document's chunks, vectors and keyword postings
are thousands of elements: that loop was a tenth of `ragbot ingest`'s own CPU.
A literal is built with `str.join` and `str.replace` instead, sent as one text
parameter and cast in SQL (`CAST(:x AS text[])`), which Postgres parses in C.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable


def text_array(values: Iterable[str | None]) -> str:
    """An array literal of these strings (None is SQL NULL), each quoted and escaped."""
    return (
        "{"
        + ",".join(
            "NULL" if v is None else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
            for v in values
        )
        + "}"
    )


def int_array(values: Iterable[int | None]) -> str:
    """An array literal of these integers (None is SQL NULL)."""
    # operator.index: an int (a float or a bool is refused, never rounded)
    return "{" + ",".join("NULL" if v is None else str(operator.index(v)) for v in values) + "}"
