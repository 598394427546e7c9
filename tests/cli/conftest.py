"""The console script run against the test database: the `cli` fixture and its path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from storage.db import Database

RAGBOT = shutil.which("ragbot", path=str(Path(sys.executable).parent)) or "ragbot"


@pytest.fixture
def cli(db: Database, database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Run `ragbot ARGS...`; returns the completed process (never raises on exit code)."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "RAGBOT_DATA_DIR": str(tmp_path / "data"),
        "MAX_FILE_MB": "0.1",
    }

    def run(
        *args: str, stdin: str | None = None, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [RAGBOT, *args],
            env={**env, **(extra_env or {})},
            capture_output=True,
            text=True,
            timeout=120,
            input=stdin,
            cwd=tmp_path,
        )

    return run
