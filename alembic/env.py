"""Alembic environment: the URL comes from the caller (`storage.db`), never from a file."""

from __future__ import annotations

from sqlalchemy import create_engine, pool

from alembic import context

config = context.config


def run_migrations_online() -> None:
    """Run migrations on a synchronous psycopg connection."""
    connectable = config.attributes.get("connection")
    if connectable is not None:
        context.configure(connection=connectable, transaction_per_migration=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(config.attributes["url"], poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, transaction_per_migration=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations_online()
