"""A database that fails mid-turn: one short line per failure in the log, no traceback
above DEBUG (a short outage must not bury the log in hundreds of lines a turn)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from bot.core.messages import ErrorReply
from storage.embeddings import Embedder
from tests.support.core_fixtures import (
    close_worker,
    collect,
    make_worker,
    message,
    settings_for_tests,
)


async def test_a_turn_failing_on_the_database_logs_a_few_lines_without_traceback(
    database_url: str, embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    worker = await make_worker(database_url, embedder, settings_for_tests(), open_jobs=False)
    seen: list[str] = []

    def down(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)
        if len(seen) > 3:  # claimed and locked: then the connection drops
            refused = ConnectionRefusedError(111, "Connection refused")
            raise OperationalError(statement, None, refused)

    event.listen(worker.db.engine.sync_engine, "before_cursor_execute", down)
    caplog.set_level(logging.DEBUG)
    try:
        events = await collect(worker.core.handle(message("passport fee?")))
    finally:
        event.remove(worker.db.engine.sync_engine, "before_cursor_execute", down)
        await close_worker(worker)
    assert isinstance(events[-1], ErrorReply)  # the asker is told
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING]
    text = "\n".join(caplog.handler.format(r) for r in loud)
    assert loud, "the failure is said"
    assert "Traceback" not in text and all(r.exc_info is None for r in loud), text
    assert len(text.splitlines()) <= 4, text
    assert "OperationalError" in text
