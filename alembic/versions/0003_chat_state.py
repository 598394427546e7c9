"""Chat state: what a chat platform needs remembered between updates.

One small key-value table per platform: a user's chosen reply language, a
private chat's current conversation (/new), which conversation a bot message
belongs to (replies in groups), a pending `/upload` waiting for its file.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

import sqlalchemy as sa

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.text("now()")
    op.create_table(
        "chat_state",
        sa.Column("platform", sa.Text, primary_key=True),
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=now),
    )
    op.create_index("ix_chat_state_updated_at", "chat_state", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_chat_state_updated_at", "chat_state")
    op.drop_table("chat_state")
