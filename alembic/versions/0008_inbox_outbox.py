"""The inbox and the outbox: no accepted message lost, no reply half-sent.

`processed_events` becomes the inbox: a delivery an adapter accepts is stored
with its message (`payload`, JSON) in the transaction that claims it, before
the platform is acknowledged; turns run from it, and a worker that dies leaves
its lease to expire so another answers. `owner` names the worker holding the
lease (a fencing token); `posted` lists the messages an attempt already posted
(so a resumed turn edits them instead of posting twice). The payload is
cleared when the delivery is done (the question is stored, masked, with the
conversation).

`outbox` holds the sends that must arrive (final answers, upload results, form
files): one row per send, keyed so a retry can never post twice, retried off
the turn with backoff and the platform's `retry_after`, failed with a reason
after a cap. `rate_limits.noticed_window` remembers that a user over the limit
was told so in this window (one notice per window).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    jsonb = postgresql.JSONB
    op.add_column("processed_events", sa.Column("payload", jsonb, nullable=True))
    op.add_column(
        "processed_events",
        sa.Column("posted", jsonb, nullable=False, server_default=sa.text("'[]'::jsonb")),
    )
    # the worker holding the lease: only it renews or gives the delivery up (a worker
    # whose lease was taken over while it was cut off must not keep answering)
    op.add_column("processed_events", sa.Column("owner", sa.Text))
    op.add_column("processed_events", sa.Column("last_error", sa.Text))
    # the sweep looks for waiting deliveries whose lease ran out
    op.create_index(
        "ix_processed_events_waiting",
        "processed_events",
        ["lease_until"],
        postgresql_where=sa.text("payload IS NOT NULL AND status = 'claimed'"),
    )
    op.add_column("rate_limits", sa.Column("noticed_window", sa.DateTime(timezone=True)))

    op.create_table(
        "outbox",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("chat", sa.Text, nullable=False),
        sa.Column("key", sa.Text, nullable=False, unique=True),
        sa.Column("payload", jsonb, nullable=False),
        sa.Column("status", sa.Text, nullable=False, server_default="pending"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column(
            "next_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("lease_until", sa.DateTime(timezone=True)),
        sa.Column("last_error", sa.Text),
        sa.Column("result", jsonb),
        sa.Column("trace_id", sa.Text),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("sent_at", sa.DateTime(timezone=True)),
    )
    op.create_index(
        "ix_outbox_due",
        "outbox",
        ["platform", "chat", "id"],
        postgresql_where=sa.text("status IN ('pending', 'sending')"),
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_due", "outbox")
    op.drop_table("outbox")
    op.drop_column("rate_limits", "noticed_window")
    op.drop_index("ix_processed_events_waiting", "processed_events")
    for column in ("last_error", "owner", "posted", "payload"):
        op.drop_column("processed_events", column)
