"""Telemetry and retention: instance secrets, indexes the purge and the reports use.

`instance_secrets` holds keys generated once per installation (the user
pseudonymisation key when USER_HASH_KEY is not set), so every worker hashes a
user to the same id.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

import sqlalchemy as sa

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.text("now()")
    op.create_table(
        "instance_secrets",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=now),
    )
    op.create_index("ix_messages_created_at", "messages", ["created_at"])
    op.create_index("ix_messages_trace_id", "messages", ["trace_id"])
    op.create_index("ix_feedback_updated_at", "feedback", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_feedback_updated_at", "feedback")
    op.drop_index("ix_messages_trace_id", "messages")
    op.drop_index("ix_messages_created_at", "messages")
    op.drop_table("instance_secrets")
