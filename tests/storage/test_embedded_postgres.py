"""The embedded server's memory: shared_buffers sized from the machine, applied at next start."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from storage.embedded_postgres import (
    configure_shared_buffers,
    shared_buffers_mb,
)


@pytest.mark.parametrize(
    ("memory_gb", "expected"), [(0.25, 128), (1, 256), (16, 4096), (24, 6144), (64, 8192)]
)
def test_shared_buffers_default_to_a_quarter_of_memory_within_bounds(
    monkeypatch: pytest.MonkeyPatch, memory_gb: float, expected: int
) -> None:
    pages = int(memory_gb * 2**30) // 4096
    monkeypatch.setattr(os, "sysconf", lambda name: 4096 if name == "SC_PAGE_SIZE" else pages)
    assert shared_buffers_mb(None) == expected
    assert shared_buffers_mb(0) == 0  # the server's own configuration is left alone
    assert shared_buffers_mb(2048) == 2048


def test_the_setting_is_written_for_the_next_start(admin_url: str) -> None:
    if os.environ.get("RAGBOT_TEST_DATABASE_URL"):
        pytest.skip("an external server")
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        configure_shared_buffers(str(make_url(admin_url).query["host"]), 256)
        with engine.connect() as conn:
            pending = conn.execute(
                text(
                    "SELECT setting FROM pg_file_settings WHERE name = 'shared_buffers'"
                    " ORDER BY seqno DESC LIMIT 1"
                )
            ).scalar_one()
            # applied at the next start; the running server keeps its value
            assert pending == "256MB"
            assert conn.execute(text("SHOW shared_buffers")).scalar_one() != "256MB"
    finally:
        with engine.connect() as conn:
            conn.execute(text("ALTER SYSTEM RESET shared_buffers"))
        engine.dispose()
