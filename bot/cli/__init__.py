"""The `ragbot` command line: admin and knowledge-base commands over the same services."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

import typer

from bot.settings import Settings

T = TypeVar("T")

app = typer.Typer(
    name="ragbot",
    help="Answers questions from your organisation's documents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def settings() -> Settings:
    """Settings for this invocation (read once per command, never at import)."""
    return Settings()


def fail(message: str, code: int = 2) -> None:
    """Print a clear error (no stack trace) and exit."""
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


def run(coro_fn: Callable[[], Awaitable[T]]) -> T:
    """Run an async command, turning expected failures into one-line errors."""
    from sqlalchemy.exc import DBAPIError

    from bot.settings import ConfigurationError
    from storage.db import DatabaseUnavailableError
    from storage.embedded_postgres import EmbeddedPostgresError
    from storage.embeddings import EmbeddingMismatchError

    async def main() -> T:
        return await coro_fn()

    try:
        return asyncio.run(main())
    except (
        EmbeddingMismatchError,
        DatabaseUnavailableError,
        EmbeddedPostgresError,
        ConfigurationError,
    ) as exc:
        fail(str(exc))
    except DBAPIError as exc:
        first = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else "unknown"
        fail(f"database error: {first}")
    except KeyboardInterrupt:
        fail("interrupted", code=130)
    except Exception as exc:  # a bug: say so in one line, details in the debug log
        logging.getLogger("ragbot").debug("unexpected error", exc_info=True)
        fail(f"unexpected {type(exc).__name__}: {exc} (LOG_LEVEL=DEBUG shows the traceback)")
    raise AssertionError("unreachable")


def main() -> None:
    """Console-script entry point."""
    from graph.privacy import install_log_masking

    logging.basicConfig(level=Settings().log_level.upper(), stream=sys.stderr)
    # the privacy rule holds for logs too: a message's e-mail or phone number never lands there
    install_log_masking()
    # pypdf logs every oddity of a bad PDF; the ingest summary already says what failed.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    # httpx logs each request's URL, and Telegram's URLs carry the bot token
    logging.getLogger("httpx").setLevel(logging.WARNING)
    from bot.cli import admin, ask, chat, demo, doctor, jobs, kb, memory, reports, serve  # noqa: F401

    app()
