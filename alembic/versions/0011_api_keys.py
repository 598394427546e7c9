"""API keys: who may call the HTTP API, what they read, and how often.

A key is shown once when created; only its SHA-256 is kept (`key_hash`), with
its first characters (`prefix`) so an operator can tell keys apart in a list.
`collections` are what the key reads (like a platform's collections), `admin`
lets it upload and delete, `rate_limit` overrides API_RATE_LIMIT_PER_MINUTE.
A revoked key stays listed (its name is not reused: audit rows name it).
The outbox gains an index on its done rows by chat: the web chat's mailbox.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE api_keys (
            id bigserial PRIMARY KEY,
            name text NOT NULL UNIQUE,
            key_hash text NOT NULL UNIQUE,
            prefix text NOT NULL,
            collections text[] NOT NULL,
            admin boolean NOT NULL DEFAULT false,
            rate_limit integer,
            created_at timestamptz NOT NULL DEFAULT now(),
            last_used_at timestamptz,
            revoked_at timestamptz
        )
        """
    )
    # the web chat collects the staff's replies to its conversation from the done rows
    op.execute(
        "CREATE INDEX outbox_done_by_chat ON outbox (platform, chat, id) WHERE status = 'done'"
    )


def downgrade() -> None:
    op.execute("DROP INDEX outbox_done_by_chat")
    op.execute("DROP TABLE api_keys")
