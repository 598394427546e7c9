"""The `ragbot` command line: admin and knowledge-base commands over the same services.

Each command module registers itself on `bot.cli.base.app` when imported.
"""

from __future__ import annotations

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
    memory,
    reports,
    serve,
)
from bot.cli.base import app
from bot.settings import Settings


def main() -> None:
    """Console-script entry point."""
    configure_logging(Settings().log_level)
    app()
