"""Hand-off cases: a question handed to people, its staff-room posts and its relayed messages.

`handoff_cases` holds one case per hand-off (asker's platform, conversation and
route; the question as stored, masked; the bot's answer and the passages it
looked at; who claimed and closed it, when the first staff reply came). At most
one case is open per conversation (a partial unique index). `handoff_posts`
maps each message the bot posted in a staff room (the case card, relayed asker
messages) to its case, so a staff reply in the card's thread or to any of
them finds the case. `handoff_messages` is the case's conversation, each
relayed message once (`source` is the inbound delivery it came from).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE handoff_cases (
            id bigserial PRIMARY KEY,
            status text NOT NULL DEFAULT 'open',
            platform text NOT NULL,
            conversation_key text NOT NULL,
            asker text NOT NULL,
            route jsonb NOT NULL DEFAULT '{}'::jsonb,
            language text NOT NULL DEFAULT 'en',
            question text NOT NULL,
            answer text NOT NULL DEFAULT '',
            outcome text,
            passages jsonb NOT NULL DEFAULT '[]'::jsonb,
            answer_message_id bigint REFERENCES messages(id) ON DELETE SET NULL,
            claimed_by text,
            claimed_at timestamptz,
            first_reply_at timestamptz,
            closed_by text,
            closed_at timestamptz,
            reminded_at timestamptz,
            reminders integer NOT NULL DEFAULT 0,
            kb_upload_id bigint,
            kb_claimed_at timestamptz,
            created_at timestamptz NOT NULL DEFAULT now(),
            CONSTRAINT ck_handoff_status CHECK (status IN ('open', 'claimed', 'closed'))
        )
        """
    )
    op.execute(
        "CREATE UNIQUE INDEX uq_handoff_open_conversation ON handoff_cases"
        " (platform, conversation_key) WHERE status <> 'closed'"
    )
    op.execute("CREATE INDEX ix_handoff_cases_created ON handoff_cases (created_at)")
    op.execute(
        """
        CREATE TABLE handoff_posts (
            platform text NOT NULL,
            ref text NOT NULL,
            case_id bigint NOT NULL REFERENCES handoff_cases(id) ON DELETE CASCADE,
            is_card boolean NOT NULL DEFAULT false,
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (platform, ref)
        )
        """
    )
    op.execute("CREATE INDEX ix_handoff_posts_case ON handoff_posts (case_id)")
    op.execute(
        """
        CREATE TABLE handoff_messages (
            id bigserial PRIMARY KEY,
            case_id bigint NOT NULL REFERENCES handoff_cases(id) ON DELETE CASCADE,
            direction text NOT NULL,
            platform text NOT NULL,
            author text NOT NULL,
            text text NOT NULL,
            source text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            CONSTRAINT ck_handoff_direction CHECK (direction IN ('to_staff', 'to_asker')),
            CONSTRAINT uq_handoff_message_source UNIQUE (source)
        )
        """
    )
    op.execute("CREATE INDEX ix_handoff_messages_case ON handoff_messages (case_id, id)")


def downgrade() -> None:
    op.execute("DROP TABLE handoff_messages")
    op.execute("DROP TABLE handoff_posts")
    op.execute("DROP TABLE handoff_cases")
