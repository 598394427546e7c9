"""Alembic migrations up and down on an empty database."""

from __future__ import annotations

from sqlalchemy import create_engine, inspect

from storage import db as dbmod

EXPECTED = {
    "answer_memory",
    "gap_reasks",
    "documents",
    "chunks",
    "keyword_terms",
    "forms",
    "conversations",
    "messages",
    "chat_state",
    "instance_secrets",
    "reindex_vectors",
    "feedback",
    "processed_events",
    "index_meta",
    "audit_log",
    "rate_limits",
    "uploads",
    "procrastinate_jobs",
    "sources",
    "source_items",
    "admin_sessions",
    "console_answers",
}


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade(make_database) -> None:  # type: ignore[no-untyped-def]
    url = make_database()
    assert dbmod.current_revision(url) is None
    dbmod.upgrade(url)
    assert _tables(url) >= EXPECTED
    assert dbmod.current_revision(url) == dbmod.head_revision() == "0022"
    engine = create_engine(url)
    indexes = {i["name"] for i in inspect(engine).get_indexes("chunks")}
    with engine.connect() as conn:
        question_index = conn.exec_driver_sql(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_chunks_question_embedding'"
        ).scalar_one()
    engine.dispose()
    assert "ix_chunks_embedding" in indexes
    assert "ix_chunks_keywords" not in indexes  # nothing reads it (0015)
    # partial: the planner then uses it for the question half of the vector side
    assert "WHERE (question_embedding IS NOT NULL)" in question_index

    dbmod.downgrade(url, "base")
    assert not (EXPECTED & _tables(url))
    assert dbmod.current_revision(url) is None

    dbmod.upgrade(url)
    assert _tables(url) >= EXPECTED


def test_initial_migration_uses_configured_dimension(make_database) -> None:  # type: ignore[no-untyped-def]
    url = make_database()
    dbmod.upgrade(url, embedding_dim=8)
    engine = create_engine(url)
    with engine.connect() as conn:
        typ = conn.exec_driver_sql(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute"
            " WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
        ).scalar_one()
    engine.dispose()
    assert typ == "vector(8)"


def test_workers_starting_together_migrate_once(make_database) -> None:  # type: ignore[no-untyped-def]
    """Two processes' upgrades at once: the advisory lock makes the second find nothing to do."""
    from concurrent.futures import ThreadPoolExecutor

    url = make_database()
    with ThreadPoolExecutor(3) as pool:
        for future in [pool.submit(dbmod.upgrade, url) for _ in range(3)]:
            future.result()  # no DuplicateTable / DuplicateObject error
    assert dbmod.current_revision(url) == dbmod.head_revision()


def test_questions_stored_twice_before_0014_keep_their_first_copy(make_database) -> None:  # type: ignore[no-untyped-def]
    url = make_database()
    dbmod.upgrade(url, "0013")
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conv = conn.exec_driver_sql(
                "INSERT INTO conversations (platform, external_id) VALUES ('telegram', '5:0')"
                " RETURNING id"
            ).scalar_one()
            for role, content, blocked in [
                ("user", "fee?", False),  # the turn's question, with its answer
                ("assistant", "1,300 dollars.", False),
                ("user", "fee?", True),  # stored again as cancelled: the COMMIT had landed
                ("user", "opening hours?", False),  # another turn
            ]:
                trace = "t-2" if content == "opening hours?" else "t-1"
                conn.exec_driver_sql(
                    "INSERT INTO messages (conversation_id, role, content, trace_id, blocked)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    (conv, role, content, trace, blocked),
                )
        dbmod.upgrade(url)
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT role, trace_id, blocked FROM messages ORDER BY id"
            ).all()
    finally:
        engine.dispose()
    assert [tuple(r) for r in rows] == [
        ("user", "t-1", False),
        ("assistant", "t-1", False),
        ("user", "t-2", False),
    ]


def test_chunks_stored_without_keywords_survive_a_downgrade_past_0015(make_database) -> None:  # type: ignore[no-untyped-def]
    url = make_database()
    dbmod.upgrade(url)
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            doc = conn.exec_driver_sql(
                "INSERT INTO documents (title, format, content_hash, size_bytes, chunk_count)"
                " VALUES ('fees', 'txt', 'h', 1, 1) RETURNING id"
            ).scalar_one()
            conn.exec_driver_sql(
                "INSERT INTO chunks (document_id, position, text, token_count, embedding)"
                " VALUES (%s, 0, 'An adult renewal costs 1,300 dollars.', 6, %s)",
                (doc, "[" + ",".join(["0.1"] * 512) + "]"),
            )
            # a database whose index was built again meanwhile (the benchmark's filler did)
            conn.exec_driver_sql("CREATE INDEX ix_chunks_keywords ON chunks USING gin (keywords)")
        dbmod.downgrade(url, "0014")  # the code before: its GIN index back
        with engine.connect() as conn:
            kept = conn.exec_driver_sql("SELECT text FROM chunks").scalars().all()
        indexes = {i["name"] for i in inspect(engine).get_indexes("chunks")}
        dbmod.upgrade(url)
        indexes_after = {i["name"] for i in inspect(engine).get_indexes("chunks")}
    finally:
        engine.dispose()
    assert kept == ["An adult renewal costs 1,300 dollars."]
    assert "ix_chunks_keywords" in indexes
    assert "ix_chunks_keywords" not in indexes_after
    assert dbmod.current_revision(url) == dbmod.head_revision()


def test_documents_stored_before_0016_are_files(make_database) -> None:  # type: ignore[no-untyped-def]
    url = make_database()
    dbmod.upgrade(url, "0015")
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(
                "INSERT INTO documents (title, format, content_hash, size_bytes, chunk_count)"
                " VALUES ('passport-renewal', 'md', 'h', 1, 0)"
            )
        dbmod.upgrade(url)
        with engine.connect() as conn:
            origin = conn.exec_driver_sql("SELECT origin FROM documents").scalar_one()
        dbmod.downgrade(url, "0015")
        columns = {c["name"] for c in inspect(engine).get_columns("documents")}
    finally:
        engine.dispose()
    assert origin == "file" and "origin" not in columns


def test_0020_lets_a_source_be_a_confluence_space(make_database) -> None:  # type: ignore[no-untyped-def]
    url = make_database()
    dbmod.upgrade(url)
    engine = create_engine(url)
    add = (
        "INSERT INTO sources (name, kind, location, collection, every_s)"
        " VALUES ('{0}', '{0}', 'x', 'public', 60)"
    )
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(add.format("confluence"))
            conn.exec_driver_sql(add.format("web"))
        dbmod.downgrade(url, "0019")  # the Confluence source goes; the others stay
        with engine.connect() as conn:
            kinds = conn.exec_driver_sql("SELECT kind FROM sources").scalars().all()
    finally:
        engine.dispose()
    assert kinds == ["web"]


def test_withdrawn_console_answers_do_not_come_back_after_a_downgrade_past_0021(
    make_database,
) -> None:  # type: ignore[no-untyped-def]
    # the code before 0021 rebuilds a collection's FAQ document from every row it finds:
    # a withdrawn answer left behind would be published again by the next publish
    url = make_database()
    dbmod.upgrade(url)
    engine = create_engine(url)
    add = (
        "INSERT INTO console_answers (collection, question, answer, written_by, withdrawn_at)"
        " VALUES ('public', '{0}', 'a', 'ops', {1})"
    )
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(add.format("kept", "NULL"))
            conn.exec_driver_sql(add.format("withdrawn", "now()"))
        dbmod.downgrade(url, "0020")
        with engine.connect() as conn:
            questions = conn.exec_driver_sql("SELECT question FROM console_answers").scalars().all()
    finally:
        engine.dispose()
    assert questions == ["kept"]
