"""Re-embedding without locking searches: a staging table for the new vectors.

`ragbot reindex` writes each batch of new vectors here in its own short
transaction; the swap into `chunks.embedding` is one short transaction at the
end. The column has no dimension, so any embedder's vectors fit.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE TABLE reindex_vectors ("
        " chunk_id bigint PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,"
        " embedder text NOT NULL,"
        " embedding vector NOT NULL)"
    )


def downgrade() -> None:
    op.drop_table("reindex_vectors")
