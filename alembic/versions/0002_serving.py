"""Serving core: collections, delivery leases, audit log, rate limits, uploads, job queue.

The job queue is procrastinate's: its schema (the version pinned in
pyproject.toml) is applied here like every other table, so `ragbot db upgrade`
is the only thing that changes the database.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from importlib import resources

import sqlalchemy as sa

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _procrastinate_schema() -> str:
    return (resources.files("procrastinate.sql") / "schema.sql").read_text(encoding="utf-8")


def upgrade() -> None:
    now = sa.text("now()")
    for table in ("documents", "forms"):
        op.add_column(
            table, sa.Column("collection", sa.Text, nullable=False, server_default="public")
        )
        op.create_index(f"ix_{table}_collection", table, ["collection"])
    op.add_column(
        "messages", sa.Column("blocked", sa.Boolean, nullable=False, server_default="false")
    )
    # where a cited document can be read: given at ingest, or an HTML page's canonical URL
    op.add_column("documents", sa.Column("url", sa.Text, nullable=True))

    # A claim is a lease: done when the reply is posted, or free again once it expires.
    op.add_column(
        "processed_events", sa.Column("status", sa.Text, nullable=False, server_default="done")
    )
    op.add_column("processed_events", sa.Column("lease_until", sa.DateTime(timezone=True)))
    op.add_column(
        "processed_events", sa.Column("attempts", sa.Integer, nullable=False, server_default="1")
    )
    op.add_column("processed_events", sa.Column("completed_at", sa.DateTime(timezone=True)))

    op.add_column("feedback", sa.Column("platform", sa.Text, nullable=True))
    op.add_column(
        "feedback", sa.Column("updated_at", sa.DateTime(timezone=True), server_default=now)
    )
    op.create_unique_constraint(
        "uq_feedback_vote", "feedback", ["message_id", "platform", "user_id"]
    )

    op.create_table(
        "audit_log",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), server_default=now, nullable=False),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("target", sa.Text, nullable=True),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=True),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"])

    op.create_table(
        "rate_limits",
        sa.Column("platform", sa.Text, primary_key=True),
        sa.Column("user_id", sa.Text, primary_key=True),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
    )

    op.create_table(
        "uploads",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("conversation_key", sa.Text, nullable=True),
        sa.Column("file_name", sa.Text, nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("language", sa.Text, nullable=True),  # the uploader's: for the result message
        sa.Column("size_bytes", sa.BigInteger, nullable=False),
        # the bytes live here (not on one machine's disk) until the job has run
        sa.Column("data", sa.LargeBinary, nullable=True),
        sa.Column("status", sa.Text, nullable=False, server_default="queued"),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("chunks", sa.Integer, nullable=True),
        sa.Column("job_id", sa.BigInteger, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=now, nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_uploads_status", "uploads", ["status"])

    # The schema text has no bind parameters: run it on the driver connection, where
    # psycopg sends several statements at once and ":" is not a placeholder.
    op.get_bind().connection.driver_connection.execute(_procrastinate_schema())


def downgrade() -> None:
    conn = op.get_bind()
    objects = (
        ("TABLE", "SELECT tablename FROM pg_tables WHERE tablename LIKE 'procrastinate%%'"),
        (
            "FUNCTION",
            "SELECT oid::regprocedure::text FROM pg_proc WHERE proname LIKE 'procrastinate%%'",
        ),
        (
            "TYPE",
            "SELECT typname FROM pg_type WHERE typname LIKE 'procrastinate%%'"
            " AND typtype IN ('e', 'c')",
        ),
    )
    for kind, query in objects:
        for (name,) in conn.exec_driver_sql(query).all():
            conn.exec_driver_sql(f"DROP {kind} IF EXISTS {name} CASCADE")
    op.drop_table("uploads")
    op.drop_table("rate_limits")
    op.drop_table("audit_log")
    op.drop_constraint("uq_feedback_vote", "feedback")
    op.drop_column("feedback", "updated_at")
    op.drop_column("feedback", "platform")
    for column in ("completed_at", "attempts", "lease_until", "status"):
        op.drop_column("processed_events", column)
    op.drop_column("messages", "blocked")
    op.drop_column("documents", "url")
    for table in ("forms", "documents"):
        op.drop_index(f"ix_{table}_collection", table)
        op.drop_column(table, "collection")
