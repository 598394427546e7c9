"""`ragbot serve` and `ragbot worker` as users run them: health, SIGTERM, embedded Postgres.

The lost database, Slack and Telegram are in test_serve_*.py beside this file: each
starts its own processes, and the test processes share out files, not tests.
"""

from __future__ import annotations

import signal
from pathlib import Path

import psutil

from tests.support.processes import health as _health
from tests.support.processes import wait_for as _wait_for


def _postmaster(data_dir: Path) -> psutil.Process:
    pid = int((data_dir / "pg" / "postmaster.pid").read_text().split()[0])
    return psutil.Process(pid)


def test_serve_stops_cleanly_on_sigterm_and_stops_its_embedded_postgres(
    start, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    proc, port = start("serve")
    assert _health(port) == 200
    postmaster = _postmaster(tmp_path / "data")
    assert postmaster.is_running()
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert "adapters: none configured" in out and "stopped" in out
    assert "Traceback" not in out
    _wait_for(lambda: not postmaster.is_running(), timeout=30)


def test_worker_serves_health_on_the_shared_database(start, database_url: str) -> None:  # type: ignore[no-untyped-def]
    proc, port = start("worker", DATABASE_URL=database_url)
    assert _health(port) == 200
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert "job worker: running" in out and "adapters" not in out
