"""The `ragbot` command line: admin and knowledge-base commands over the same services.

Each command module registers itself on `bot.cli.base.app` when imported.
"""

from __future__ import annotations

import typer

from bot.app.process_logging import configure_logging
from bot.cli import (  # noqa: F401  (each module registers its commands)
    admin,
    apikey,
    ask,
    chat,
    demo,
    doctor,
    jobs,
    kb,
    mcp,
    memory,
    reports,
    serve,
    sources,
)
from bot.cli.base import app, settings


def main() -> None:
    """Console-script entry point (a setting that cannot be read: one line, exit 2)."""
    try:
        level = settings().log_level
    except typer.Exit as stop:  # outside the Typer app: exit as it would
        raise SystemExit(stop.exit_code) from None
    configure_logging(level)
    app()
