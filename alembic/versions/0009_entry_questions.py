"""FAQ entries keep their own question: a text and a vector beside each chunk's.

A chunk cut from an FAQ entry stores the entry's question (`entry_question`)
and its embedding (`question_embedding`, same dimension as `embedding`, with
its own HNSW index): a citizen's paraphrase is matched against the entry's
question as well as the whole chunk, and an answer's later chunks stay tied
to their question. Other chunks leave both empty (HNSW skips NULLs).
`reindex_vectors` stages the re-embedded question vectors too.

Existing FAQ documents get their questions on their next upload (or
`ragbot reindex --rechunk`); until then they are searched as before.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

from sqlalchemy import text

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    # the embedding column's dimension (pgvector keeps it in atttypmod)
    dim = bind.execute(
        text(
            "SELECT atttypmod FROM pg_attribute"
            " WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
        )
    ).scalar_one()
    op.execute("ALTER TABLE chunks ADD COLUMN entry_question text")
    op.execute(f"ALTER TABLE chunks ADD COLUMN question_embedding vector({int(dim)})")
    op.execute("ALTER TABLE chunks ALTER COLUMN question_embedding SET STORAGE PLAIN")
    op.execute(
        "CREATE INDEX ix_chunks_question_embedding ON chunks"
        " USING hnsw (question_embedding vector_cosine_ops)"
    )
    op.execute("ALTER TABLE reindex_vectors ADD COLUMN question_embedding vector")


def downgrade() -> None:
    op.execute("ALTER TABLE reindex_vectors DROP COLUMN question_embedding")
    op.execute("DROP INDEX IF EXISTS ix_chunks_question_embedding")
    op.execute("ALTER TABLE chunks DROP COLUMN question_embedding")
    op.execute("ALTER TABLE chunks DROP COLUMN entry_question")
