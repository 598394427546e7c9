"""Logging of every ragbot process (the command line, and the turn workers it spawns)."""

from __future__ import annotations

import logging
import sys

from graph.privacy import install_log_masking


def configure_logging(level: str) -> None:
    """Log to stderr at `level` (LOG_LEVEL), masked, with the chatty libraries quietened."""
    logging.basicConfig(level=level.upper(), stream=sys.stderr)
    # the privacy rule holds for logs too: a message's e-mail or phone number never lands there
    install_log_masking()
    # pypdf logs every oddity of a bad PDF; the ingest summary already says what failed.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    # httpx logs each request's URL, and Telegram's URLs carry the bot token
    logging.getLogger("httpx").setLevel(logging.WARNING)
