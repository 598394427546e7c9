"""Synthetic filler chunks for the search benchmark at scale (100k, 1M chunks).

A scale database is a copy of the DRCD benchmark database (`bench_drcd`) grown
to N chunks. Each filler chunk copies one real chunk's text, token count and
postings (so term statistics keep DRCD's distribution, every term N/1287 times
as frequent) and gets a vector of its own: the normalised sum of its source's
embedding and w × another real chunk's (w from 0.25 to 1, 256 steps; pairs and
weights from a hash of the row number, so every run builds the same rows and
almost no two vectors are equal, which an HNSW graph would not handle like real
data).

The load is built for size: indexes are dropped first and built once at the
end (row-by-row maintenance of an HNSW graph over 1M vectors would take
hours), postings are copied with set operations in one statement, document
frequencies are derived from the real postings. Every step is resumable: a
step already done in the database is skipped, so a build interrupted between
steps can go on (`python -m bench.filler N --steps ...`).

Usage: .venv/bin/python -m bench.filler 1000000 [--steps load postings indexes hnsw vacuum]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection

from bench.common import admin_url
from storage import db as dbmod

SOURCE_DB = "bench_drcd"
STEPS = ("load", "postings", "indexes", "hnsw", "vacuum")
# The indexes of chunks and chunk_terms that a bulk load drops and builds again
# (definitions as in the migrations), in build order; the HNSW one is its own step.
BTREE_INDEXES = {
    "ux_chunk_terms_postings": "CREATE UNIQUE INDEX ux_chunk_terms_postings"
    " ON chunk_terms (term, chunk_id) INCLUDE (tf, dl)",
    "ix_chunk_terms_chunk": "CREATE INDEX ix_chunk_terms_chunk ON chunk_terms (chunk_id, term)",
    "ix_chunks_document_id": "CREATE INDEX ix_chunks_document_id ON chunks (document_id)",
}
HNSW_INDEX = (
    "ix_chunks_embedding",
    "CREATE INDEX ix_chunks_embedding ON chunks USING hnsw (embedding vector_cosine_ops)",
)
# Build memory: the HNSW graph of 1M 512-d vectors is about 2.6 GB and builds
# far faster when it fits; one parallel worker beside the leader on 2 cores.
BUILD_SETTINGS = {
    "maintenance_work_mem": "'6GB'",
    "max_parallel_maintenance_workers": "1",
    "work_mem": "'256MB'",
}


def database_name(target: int) -> str:
    """The scale database holding `target` chunks."""
    return f"{SOURCE_DB}_{target}"


def scale_url(target: int, fresh: bool) -> str:
    """The URL of the scale database; `fresh` (or none yet): copied anew from bench_drcd."""
    base = admin_url()
    name = database_name(target)
    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        exists = conn.execute(
            text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}
        ).first()
        if fresh or not exists:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            # nobody may be connected to the template while it is copied
            conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = :n AND pid <> pg_backend_pid()"
                ),
                {"n": SOURCE_DB},
            )
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{SOURCE_DB}"'))
    engine.dispose()
    return dbmod.with_database(base, name)


def _scalar(conn: Connection, sql: str, **params: Any) -> Any:
    return conn.execute(text(sql), params).scalar()


def _filler_doc(conn: Connection) -> int | None:
    return _scalar(conn, "SELECT id FROM documents WHERE title = 'filler'")


def _has_index(conn: Connection, name: str) -> bool:
    return bool(_scalar(conn, "SELECT count(*) FROM pg_class WHERE relname = :n", n=name))


def load(conn: Connection, target: int) -> None:
    """Drop the indexes the load would maintain row by row, insert the filler chunks."""
    if _filler_doc(conn) is not None:
        return
    have = int(_scalar(conn, "SELECT count(*) FROM chunks"))
    need = target - have
    if need <= 0:
        return
    # ix_chunks_keywords: a database built before revision 0015 may still have it
    for name in (*BTREE_INDEXES, HNSW_INDEX[0], "ix_chunks_keywords"):
        conn.execute(text(f"DROP INDEX IF EXISTS {name}"))
    conn.execute(text("BEGIN"))
    doc = _scalar(
        conn,
        "INSERT INTO documents (title, format, content_hash, size_bytes, chunk_count)"
        " VALUES ('filler', 'txt', 'filler', 0, :n) RETURNING id",
        n=need,
    )
    # real chunks by dense number, so each filler row picks its sources cheaply
    conn.execute(
        text(
            "CREATE TEMP TABLE src AS SELECT row_number() OVER (ORDER BY id) AS rn, id,"
            " text, language, token_count, embedding FROM chunks"
        )
    )
    conn.execute(text("ALTER TABLE src ADD PRIMARY KEY (rn)"))
    dim = int(_scalar(conn, "SELECT vector_dims(embedding) FROM src LIMIT 1"))
    # 256 weights as constant vectors: vector * vector multiplies element-wise
    conn.execute(
        text(
            "CREATE TEMP TABLE weights AS SELECT k, array_fill((0.25 + 0.75 * k / 255.0)::real,"
            " ARRAY[:dim])::vector AS w FROM generate_series(0, 255) k"
        ),
        {"dim": dim},
    )
    conn.execute(text("ALTER TABLE weights ADD PRIMARY KEY (k)"))
    conn.execute(text("ANALYZE src"))
    conn.execute(text("ANALYZE weights"))
    conn.execute(
        text(
            "INSERT INTO chunks"
            " (document_id, position, text, language, token_count, embedding)"
            " SELECT :doc, g, a.text, a.language, a.token_count,"
            " l2_normalize(a.embedding + b.embedding * w.w)"
            " FROM generate_series(1, :need) g"
            " JOIN src a ON a.rn = 1 + (hashint8(g)::bigint & 2147483647) % :have"
            " JOIN src b ON b.rn = 1 + (hashint8(g + :need)::bigint & 2147483647) % :have"
            " JOIN weights w ON w.k = (hashint8(-g)::bigint & 255)"
        ),
        {"doc": doc, "need": need, "have": have},
    )
    conn.execute(text("COMMIT"))
    conn.execute(text("DROP TABLE src, weights"))


def postings(conn: Connection, target: int) -> None:
    """Each filler chunk's postings (its source's), document frequencies, index totals."""
    done = _scalar(conn, "SELECT chunk_count FROM index_meta")
    doc = _filler_doc(conn)
    if doc is None or int(done) >= target:
        return
    conn.execute(text("BEGIN"))
    # filler chunk → the real chunk it copies: the same hash of its position as in load()
    conn.execute(
        text(
            "CREATE TEMP TABLE copies ON COMMIT DROP AS"
            " SELECT f.id, r.id AS source FROM chunks f"
            " JOIN (SELECT row_number() OVER (ORDER BY id) AS rn, id FROM chunks"
            " WHERE document_id <> :doc) r"
            " ON r.rn = 1 + (hashint8(f.position::bigint)::bigint & 2147483647)"
            " % (SELECT count(*) FROM chunks WHERE document_id <> :doc)"
            " WHERE f.document_id = :doc"
        ),
        {"doc": doc},
    )
    conn.execute(text("ANALYZE copies"))
    conn.execute(
        text(
            "INSERT INTO chunk_terms (term, chunk_id, tf, dl)"
            " SELECT t.term, c.id, t.tf, t.dl FROM copies c JOIN chunk_terms t"
            " ON t.chunk_id = c.source"
        )
    )
    # df of a term: its real postings, each counted once more per copy of its chunk
    conn.execute(text("TRUNCATE keyword_terms"))
    conn.execute(
        text(
            "INSERT INTO keyword_terms (term, df)"
            " SELECT t.term, sum(1 + coalesce(n.copies, 0)) FROM chunk_terms t"
            " JOIN chunks r ON r.id = t.chunk_id AND r.document_id <> :doc"
            " LEFT JOIN (SELECT source, count(*) AS copies FROM copies GROUP BY source) n"
            " ON n.source = t.chunk_id GROUP BY t.term"
        ),
        {"doc": doc},
    )
    conn.execute(
        text(
            "UPDATE index_meta SET chunk_count = (SELECT count(*) FROM chunks),"
            " token_total = (SELECT sum(token_count) FROM chunks)"
        )
    )
    conn.execute(text("COMMIT"))


def indexes(conn: Connection, target: int) -> None:
    """The B-tree indexes, built once over the loaded rows."""
    for name, ddl in BTREE_INDEXES.items():
        if not _has_index(conn, name):
            conn.execute(text(ddl))


def hnsw(conn: Connection, target: int) -> None:
    """The chunks' HNSW index (pgvector defaults m=16, ef_construction=64)."""
    if not _has_index(conn, HNSW_INDEX[0]):
        conn.execute(text(HNSW_INDEX[1]))


def vacuum(conn: Connection, target: int) -> None:
    """VACUUM ANALYZE: statistics, and the visibility map index-only scans need."""
    for table in ("chunks", "chunk_terms", "keyword_terms", "documents"):
        conn.execute(text(f"VACUUM ANALYZE {table}"))


STEP_FUNCTIONS: dict[str, Callable[[Connection, int], None]] = {
    "load": load,
    "postings": postings,
    "indexes": indexes,
    "hnsw": hnsw,
    "vacuum": vacuum,
}


def build(url: str, target: int, steps: tuple[str, ...] = STEPS) -> dict[str, float]:
    """Run `steps` (each skipped when done already); seconds per step."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    seconds: dict[str, float] = {}
    with engine.connect() as conn:
        for name, value in BUILD_SETTINGS.items():
            conn.execute(text(f"SET {name} = {value}"))
        # bulk rows are built consistent: no per-row foreign-key triggers
        conn.execute(text("SET session_replication_role = replica"))
        for step in steps:
            start = time.perf_counter()
            STEP_FUNCTIONS[step](conn, target)
            seconds[step] = round(time.perf_counter() - start, 1)
            print(f"filler {target}: {step} {seconds[step]} s", flush=True)
    engine.dispose()
    return seconds


def chunk_count(url: str) -> int:
    """Chunks in the database at `url`."""
    engine = create_engine(url)
    with engine.connect() as conn:
        n = int(conn.execute(text("SELECT count(*) FROM chunks")).scalar_one())
    engine.dispose()
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("target", type=int, help="chunks in all")
    parser.add_argument("--steps", nargs="*", default=list(STEPS), choices=STEPS)
    parser.add_argument("--fresh", action="store_true", help="copy bench_drcd anew first")
    args = parser.parse_args()
    url = scale_url(args.target, args.fresh)
    print(build(url, args.target, tuple(args.steps)))


if __name__ == "__main__":
    main()
