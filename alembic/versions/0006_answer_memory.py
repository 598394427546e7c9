"""Answer memory: questions answered well, served again without a new turn.

One row per (question key, scope): the key is the question's terms in order
(storage.memory.question_key: script, case, width and function words
folded), the scope the collections of the documents it cites. `sources`
records the title and content hash of every cited document and `form_sources`
a signature of every form offered: an entry whose sources changed is never
served. The vector column has no dimension, like `reindex_vectors`: any
embedder's vectors fit, `embedding_model` says whose they are.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.text("now()")
    op.create_table(
        "answer_memory",
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("question_key", sa.Text, nullable=False),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("language", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("citations", JSONB, nullable=False),
        sa.Column("forms", JSONB, nullable=False),
        sa.Column("sources", JSONB, nullable=False),
        sa.Column("form_sources", JSONB, nullable=False),
        sa.Column("collections", ARRAY(sa.Text), nullable=False),
        sa.Column("embedding_model", sa.Text, nullable=False),
        sa.Column("source_trace_id", sa.Text, nullable=True),
        sa.Column("hits", sa.Integer, nullable=False, server_default="0"),
        sa.Column("helpful", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=now),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=False, server_default=now),
        sa.Column("last_hit_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("question_key", "scope", name="uq_answer_memory_key_scope"),
    )
    op.execute("ALTER TABLE answer_memory ADD COLUMN embedding vector NOT NULL")
    op.create_index("ix_answer_memory_source_trace", "answer_memory", ["source_trace_id"])


def downgrade() -> None:
    op.drop_table("answer_memory")
