"""A turn's question is stored once: a unique index on the question row's trace id.

A turn stores its question with its answer (one transaction). When the turn
is cancelled (a drain, a caller gone) while that COMMIT is on its way, the
COMMIT may land while the caller sees the cancellation; the turn then stores
its question again as cancelled. With this index, that second insert waits for
the first transaction and does nothing when it committed (`ON CONFLICT DO
NOTHING`). Questions stored twice that way before are removed first (the
earlier row, the one with the answer, stays; a downgrade drops the index and
does not bring them back). The table is held in share mode meanwhile: no
process still running the code before can store a new copy between the clean-up
and the index (turns' stores wait the few moments this takes).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("LOCK TABLE messages IN SHARE MODE")
    op.execute(
        "DELETE FROM messages m WHERE m.role = 'user' AND m.trace_id IS NOT NULL AND EXISTS"
        " (SELECT 1 FROM messages o WHERE o.role = 'user' AND o.trace_id = m.trace_id"
        " AND o.id < m.id)"
    )
    op.execute(
        "CREATE UNIQUE INDEX ux_messages_turn_question ON messages (trace_id)"
        " WHERE role = 'user' AND trace_id IS NOT NULL"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ux_messages_turn_question")
