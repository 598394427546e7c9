"""The admin console in the browser: its sign-in sessions and the answers it publishes.

`admin_sessions`: one row per signed-in browser. Only the SHA-256 of the session
id (the cookie's value) is kept, with the CSRF token the page echoes, the admin
API key it was opened with and when it expires; a revoked key ends its sessions
(the lookup joins the key). `console_answers`: the answers written in the
console, per collection; the collection's console FAQ document is rebuilt from
them, so an entry is never lost when another is added.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-29
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE admin_sessions (
            id_hash text PRIMARY KEY,
            csrf text NOT NULL,
            key_id bigint NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
            created_at timestamptz NOT NULL DEFAULT now(),
            expires_at timestamptz NOT NULL
        )
        """
    )
    op.execute("CREATE INDEX admin_sessions_expiry ON admin_sessions (expires_at)")
    op.execute(
        """
        CREATE TABLE console_answers (
            id bigserial PRIMARY KEY,
            collection text NOT NULL,
            question text NOT NULL,
            answer text NOT NULL,
            written_by text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute("CREATE INDEX console_answers_by_collection ON console_answers (collection, id)")


def downgrade() -> None:
    op.execute("DROP TABLE console_answers")
    op.execute("DROP TABLE admin_sessions")
