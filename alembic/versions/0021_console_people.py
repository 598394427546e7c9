"""The admin console: sessions of people signed in through the organisation's identity
provider, and published answers that can be withdrawn.

`admin_sessions.email`: who signed in through OpenID Connect (OIDC_ISSUER); such a
session has no API key (`key_id` NULL) and reads every collection. A key's session
keeps its key (and no email). `console_answers.withdrawn_at`/`withdrawn_by`: an
answer withdrawn in the console (or whose document was deleted) is kept for the
record but no longer rebuilt into the collection's FAQ document; a downgrade deletes
the withdrawn ones (the code before would rebuild them into the document again).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-29
"""

from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE admin_sessions ALTER COLUMN key_id DROP NOT NULL")
    op.execute("ALTER TABLE admin_sessions ADD COLUMN email text")
    op.execute(
        "ALTER TABLE admin_sessions ADD CONSTRAINT admin_sessions_key_or_email"
        " CHECK ((key_id IS NULL) <> (email IS NULL))"
    )
    op.execute("ALTER TABLE console_answers ADD COLUMN withdrawn_at timestamptz")
    op.execute("ALTER TABLE console_answers ADD COLUMN withdrawn_by text")


def downgrade() -> None:
    # the code before rebuilds a collection's FAQ document from every row: a withdrawn
    # answer kept for the record would be published again by the next publish
    op.execute("DELETE FROM console_answers WHERE withdrawn_at IS NOT NULL")
    op.execute("ALTER TABLE console_answers DROP COLUMN withdrawn_by")
    op.execute("ALTER TABLE console_answers DROP COLUMN withdrawn_at")
    op.execute("DELETE FROM admin_sessions WHERE key_id IS NULL")
    op.execute("ALTER TABLE admin_sessions DROP CONSTRAINT admin_sessions_key_or_email")
    op.execute("ALTER TABLE admin_sessions DROP COLUMN email")
    op.execute("ALTER TABLE admin_sessions ALTER COLUMN key_id SET NOT NULL")
