"""The console script's entry point: light to import, so spawned workers stay light."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_ragbot_script_enters_through_the_light_module() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert scripts["ragbot"] == "bot.entry:main"


def test_importing_the_entry_imports_no_command_line() -> None:
    # what each worker process started with spawn runs first: the parent's script
    probe = (
        "import sys, bot.entry; "
        "print(sorted(m for m in ('bot.cli', 'langgraph', 'typer') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_command_line_imports_the_answering_side_only_for_commands_that_answer() -> None:
    # `ragbot ingest`, `db`, `jobs`, ... start without langgraph and the graph
    probe = (
        "import sys, bot.cli; "
        "print(sorted(m for m in ('langgraph', 'bot.turn.service', 'bot.turn.settling',"
        " 'bot.core.serving',"
        " 'bot.core.answering.answerer', 'bot.core.admin.service', 'bot.core.admin.jobs',"
        " 'bot.core.admin.knowledge', 'bot.core.admin.reports', 'bot.core.admin.memory',"
        " 'bot.core.assembly',"
        " 'bot.app.lifecycle',"
        " 'uvicorn', 'fastapi', 'openai') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
