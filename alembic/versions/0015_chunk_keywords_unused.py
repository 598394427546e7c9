"""The chunks' tsvector is no longer written: its GIN index goes, the column may be NULL.

Keyword search reads the postings of `chunk_terms`; nothing reads
`chunks.keywords`, yet every ingest still built the vector and kept its GIN
index up to date (about a second of Postgres's CPU per 2,000 chunks, and at a
million chunks the largest index on chunks after HNSW). New chunks leave it NULL. The
column itself stays for now: a worker still running the code before this
revision (which writes it) keeps ingesting until it is replaced, though its
/healthz reports 503 (not at the head revision) and it cannot start again on
that code; a later revision drops the column. Both statements change the
catalog only (no scan, no rewrite). A downgrade builds the index again (over
NULLs for the chunks stored meanwhile, which no code reads) and leaves the
column nullable: filling a million rows would rewrite them and their HNSW
entries for nothing.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_chunks_keywords")
    op.execute("ALTER TABLE chunks ALTER COLUMN keywords DROP NOT NULL")


def downgrade() -> None:
    op.execute("CREATE INDEX IF NOT EXISTS ix_chunks_keywords ON chunks USING gin (keywords)")
