"""Confluence spaces as sources: `sources.kind` may be 'confluence'.

A Confluence source's location is its space's URL (the site's base URL, /spaces/,
the space key); its items are pages, keyed by their id URL, with the page's
version number as the change stamp (`etag`) and its edit time (`last_modified`).
Downgrading removes the Confluence sources (their items with them); the documents
they made stay, as ordinary documents.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-29
"""

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE sources DROP CONSTRAINT sources_kind_check")
    op.execute(
        "ALTER TABLE sources ADD CONSTRAINT sources_kind_check"
        " CHECK (kind IN ('web', 'folder', 'confluence'))"
    )


def downgrade() -> None:
    op.execute("DELETE FROM sources WHERE kind = 'confluence'")
    op.execute("ALTER TABLE sources DROP CONSTRAINT sources_kind_check")
    op.execute(
        "ALTER TABLE sources ADD CONSTRAINT sources_kind_check CHECK (kind IN ('web', 'folder'))"
    )
