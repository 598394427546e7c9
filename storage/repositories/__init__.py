"""Repositories: take a session, run queries, never commit (the caller owns the transaction)."""
