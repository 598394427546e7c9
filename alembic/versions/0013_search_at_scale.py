"""Search at scale: the entry-question HNSW index holds FAQ chunks only (a partial index).

The question half of the vector side asks for `question_embedding IS NOT
NULL ORDER BY question_embedding <=> :vec LIMIT n`. With the full index
(0009) the planner expected the filter to leave almost no rows and found a
sequential scan and sort cheaper than an index scan that might have to read
the whole index: at 100k chunks without FAQ entries that was about 100 ms a
search, at 1M about 1 s. The partial index matches the filter, so the planner
costs it by the rows it holds and uses it (0.02 ms). It holds the same
vectors: HNSW skipped NULLs anyway.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25
"""

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_chunks_question_embedding")
    op.execute(
        "CREATE INDEX ix_chunks_question_embedding ON chunks"
        " USING hnsw (question_embedding vector_cosine_ops)"
        " WHERE question_embedding IS NOT NULL"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_chunks_question_embedding")
    op.execute(
        "CREATE INDEX ix_chunks_question_embedding ON chunks"
        " USING hnsw (question_embedding vector_cosine_ops)"
    )
