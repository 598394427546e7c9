"""Sources that sync: a website or a folder, and each item (page or file) they hold.

A source records its schedule and the outcome of its last sync; an item records
what the next sync needs to change only what changed: the validators a web
server sent (ETag, Last-Modified), the hash of the text ingested, the document it
made, and how many syncs in a row it was not found (deleted at two). Deleting a
source deletes its items; deleting a document leaves its item without one.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE sources (
            id bigserial PRIMARY KEY,
            name text NOT NULL UNIQUE,
            kind text NOT NULL CHECK (kind IN ('web', 'folder')),
            location text NOT NULL,
            collection text NOT NULL,
            every_s integer NOT NULL CHECK (every_s > 0),
            depth integer NOT NULL DEFAULT 2,
            max_pages integer NOT NULL DEFAULT 500,
            created_at timestamptz NOT NULL DEFAULT now(),
            last_sync_at timestamptz,
            next_sync_at timestamptz NOT NULL DEFAULT now(),
            last_status text,
            last_result jsonb
        )
        """
    )
    op.execute(
        """
        CREATE TABLE source_items (
            id bigserial PRIMARY KEY,
            source_id bigint NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            key text NOT NULL,
            etag text,
            last_modified text,
            content_hash text,
            document_id bigint REFERENCES documents(id) ON DELETE SET NULL,
            links text[],
            missing_count integer NOT NULL DEFAULT 0,
            last_seen_at timestamptz,
            UNIQUE (source_id, key)
        )
        """
    )
    op.execute("CREATE INDEX source_items_document ON source_items (document_id)")
    op.execute("CREATE INDEX sources_next_sync ON sources (next_sync_at)")


def downgrade() -> None:
    op.execute("DROP TABLE source_items")
    op.execute("DROP TABLE sources")
