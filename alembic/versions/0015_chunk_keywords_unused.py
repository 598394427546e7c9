"""The chunks' tsvector is no longer written: its GIN index goes, the column may be NULL.

Keyword search reads the postings of `chunk_terms` (revision 0013); nothing has
read `chunks.keywords` since, yet every ingest still built the vector and kept
its GIN index up to date (about a second of Postgres's CPU per 2,000 chunks,
and at a million chunks the largest index after HNSW). New chunks leave it NULL.
The column itself stays for now: a worker still running the code before this
revision writes it, and can go on ingesting until it is replaced; a later
revision drops it. A downgrade fills the NULLs with empty vectors and builds
the index again.

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
    op.execute("UPDATE chunks SET keywords = ''::tsvector WHERE keywords IS NULL")
    op.execute("ALTER TABLE chunks ALTER COLUMN keywords SET NOT NULL")
    op.execute("CREATE INDEX ix_chunks_keywords ON chunks USING gin (keywords)")
