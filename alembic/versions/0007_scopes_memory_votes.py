"""Honest answer-memory votes and where an entry was first asked.

`answer_memory_votes` keeps one vote per voter per entry (the voter's
pseudonym, never the platform id; a changed vote replaces the old one), so an
entry's helpful count is a count of distinct people and a repeated click
counts once. `answer_memory.origin_platform` is the platform the remembered
question was asked on: an admin on one platform never lists another
platform's askers' questions. Existing entries learn it from their source turn.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

import sqlalchemy as sa

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("answer_memory", sa.Column("origin_platform", sa.Text, nullable=True))
    op.execute(
        "UPDATE answer_memory m SET origin_platform = c.platform FROM messages msg"
        " JOIN conversations c ON c.id = msg.conversation_id"
        " WHERE msg.trace_id = m.source_trace_id"
    )
    op.create_table(
        "answer_memory_votes",
        sa.Column(
            "entry_id",
            sa.BigInteger,
            sa.ForeignKey("answer_memory.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("voter", sa.Text, primary_key=True),
        sa.Column("helpful", sa.Boolean, nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
    )


def downgrade() -> None:
    op.drop_table("answer_memory_votes")
    op.drop_column("answer_memory", "origin_platform")
