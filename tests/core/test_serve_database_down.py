"""`ragbot serve` whose embedded Postgres goes away: health says 503, the job worker restarts."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import psutil

from tests.support.processes import health as _health
from tests.support.processes import wait_for as _wait_for


def _postmaster(data_dir: Path) -> psutil.Process:
    pid = int((data_dir / "pg" / "postmaster.pid").read_text().split()[0])
    return psutil.Process(pid)


def test_health_says_503_when_the_database_is_down(start, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "serve.log"
    with log.open("w") as output:
        # the job worker's queries give up on the lost database after 2 s (30 s by default)
        proc, port = start(
            "serve", _output=output, SHUTDOWN_GRACE_SECONDS="2", JOB_DB_WAIT_SECONDS="2"
        )
        assert _health(port) == 200
        postmaster = _postmaster(tmp_path / "data")
        postmaster.send_signal(signal.SIGINT)  # Postgres "fast" shutdown: the database goes
        _wait_for(lambda: not postmaster.is_running(), timeout=30)
        response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=15)
        assert response.status_code == 503 and response.json()["status"] == "unavailable"
        # the job worker stops on the lost connection and is restarted, not fatal
        _wait_for(lambda: "job worker" in (text := log.read_text()) and "restarting" in text, 60)
        assert proc.poll() is None and _health(port) == 503
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        proc.wait(timeout=60)
    assert proc.returncode == 0, log.read_text()
