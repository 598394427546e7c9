"""Open questions asked again after the knowledge base grew, and whether they are answered now.

`gap_reasks`: one row per refused turn or hand-off case asked again after an upload
or a source's sync added or changed documents: the question (masked, as stored),
whose it was (platform, conversation, asker's pseudonym), whether the new turn
answered it, and that turn. `ragbot gaps` marks what is answered now.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-29
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE gap_reasks (
            id bigserial PRIMARY KEY,
            trace_id text,
            case_id bigint REFERENCES handoff_cases (id) ON DELETE CASCADE,
            platform text NOT NULL,
            conversation text,
            asker text,
            question text NOT NULL,
            language text,
            answered boolean NOT NULL,
            answer_trace_id text,
            answer_message_id bigint REFERENCES messages (id) ON DELETE SET NULL,
            upload_id bigint,
            source_id bigint,
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute("CREATE INDEX ix_gap_reasks_trace ON gap_reasks (trace_id) WHERE answered")
    op.execute("CREATE INDEX ix_gap_reasks_case ON gap_reasks (case_id) WHERE answered")


def downgrade() -> None:
    op.execute("DROP TABLE gap_reasks")
