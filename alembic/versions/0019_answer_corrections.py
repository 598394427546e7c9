"""Corrections: what became of each answered turn re-asked after a document it cited changed.

`answer_corrections`: one row per (answer, change). `change` names the document
version that changed or went (`doc:<old document id>`), so a job retried after a
restart skips the turns it already settled. `status` says what happened: `sent`
(the asker was told, through the outbox), `unchanged` (the new answer states the
same facts), `limited` (the asker was told of another change that day), or why
no one was told (`unreadable`, `unreachable`, `gone`, `failed`). The partial
unique index holds the one-correction-per-person-per-day rule in the database.
Rows go with their answer (retention deletes messages).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-29
"""

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE answer_corrections (
            id bigserial PRIMARY KEY,
            answer_id bigint NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
            change text NOT NULL,
            document text NOT NULL,
            platform text NOT NULL,
            person text,
            status text NOT NULL,
            reason text,
            sent_day date,
            created_at timestamptz NOT NULL DEFAULT now(),
            CONSTRAINT uq_answer_corrections_change UNIQUE (answer_id, change)
        )
        """
    )
    op.execute(
        "CREATE UNIQUE INDEX ux_answer_corrections_daily ON answer_corrections"
        " (platform, person, sent_day) WHERE status = 'sent'"
    )
    op.execute("CREATE INDEX answer_corrections_created ON answer_corrections (created_at)")


def downgrade() -> None:
    op.execute("DROP TABLE answer_corrections")
