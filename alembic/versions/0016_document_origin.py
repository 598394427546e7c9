"""Documents record where they came from: a file, or a staff answer from a hand-off case.

A document made from a closed case (its question and the staff answer) must
never replace a document it did not make, whatever the citizen's question
was: ingestion replaces a document of the same title only when both have the
same origin. Existing documents are files. Adding a column with a constant
default changes the catalog only (no rewrite).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE documents ADD COLUMN origin text NOT NULL DEFAULT 'file'")


def downgrade() -> None:
    op.execute("ALTER TABLE documents DROP COLUMN origin")
