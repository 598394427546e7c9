"""Postgres + pgvector storage: models, repositories, ingestion and hybrid search."""
