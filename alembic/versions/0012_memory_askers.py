"""Who asked a remembered question: distinct askers, so "most asked" means several people.

`answer_memory_askers` keeps one row per entry and asker pseudonym (never a
platform id): the asker whose turn made the entry and each one later served
from it. Suggested questions come only from entries several people asked, so
one person repeating a question cannot put it in front of everyone.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE answer_memory_askers (
            entry_id bigint NOT NULL REFERENCES answer_memory (id) ON DELETE CASCADE,
            asker text NOT NULL,
            PRIMARY KEY (entry_id, asker)
        )
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE answer_memory_askers")
