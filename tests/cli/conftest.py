"""The console script run against the test database: `cli` (in this process) and
`cli_process` (a real `ragbot` process), and the script's path."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from storage.db import Database
from tests.support.cli_runner import RAGBOT, run_in_process, run_process

__all__ = ["RAGBOT", "cli", "cli_process"]

Cli = Callable[..., subprocess.CompletedProcess[str]]


def _runner(
    run: Callable[..., subprocess.CompletedProcess[str]], database_url: str, tmp_path: Path
) -> Cli:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "RAGBOT_DATA_DIR": str(tmp_path / "data"),
        "MAX_FILE_MB": "0.1",
    }

    def cli(
        *args: str, stdin: str | None = None, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return run(args, {**env, **(extra_env or {})}, tmp_path, stdin)

    return cli


@pytest.fixture
def cli(db: Database, database_url: str, tmp_path: Path) -> Cli:
    """Run `ragbot ARGS...` in this process, as the console script would; returns the
    completed "process" (never raises on exit code)."""
    return _runner(run_in_process, database_url, tmp_path)


@pytest.fixture
def cli_process(db: Database, database_url: str, tmp_path: Path) -> Cli:
    """Run `ragbot ARGS...` as a real process; returns the completed process."""
    return _runner(run_process, database_url, tmp_path)
