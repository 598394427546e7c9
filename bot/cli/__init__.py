"""The `ragbot` command line: admin and knowledge-base commands over the same services.

Each command module registers itself on `bot.cli.base.app` when imported.
"""

from __future__ import annotations

import logging
import sys

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
from graph.privacy import install_log_masking


def main() -> None:
    """Console-script entry point."""
    logging.basicConfig(level=Settings().log_level.upper(), stream=sys.stderr)
    # the privacy rule holds for logs too: a message's e-mail or phone number never lands there
    install_log_masking()
    # pypdf logs every oddity of a bad PDF; the ingest summary already says what failed.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    # httpx logs each request's URL, and Telegram's URLs carry the bot token
    logging.getLogger("httpx").setLevel(logging.WARNING)
    app()
