"""What every `ragbot` command shares: the Typer app, settings, and one-line errors.

The command modules import the database, the embedder and the services inside their
commands: `ragbot --help`, a mistyped command or a setting that cannot be read answer
without them (about 2 s of CPU less).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import typer
from pydantic import ValidationError

from bot.settings import ConfigurationError, Settings

T = TypeVar("T")

app = typer.Typer(
    name="ragbot",
    help="Answers questions from your organisation's documents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def settings() -> Settings:
    """Settings for this invocation (read once per command, never at import).

    A setting that cannot be read stops the command in one line naming it, never
    quoting its value (it may be a secret).
    """
    try:
        return Settings()
    except ValidationError as exc:
        fail("; ".join(setting_problem(e) for e in exc.errors(include_input=False)))
    raise AssertionError("unreachable")


def setting_problem(error: Any) -> str:
    """One pydantic error as `NAME: what is wrong` (a validator's own message as it is)."""
    name = ".".join(str(part) for part in error.get("loc", ())) or "settings"
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return message if message.startswith(name) else f"{name}: {message}"


def fail(message: str, code: int = 2) -> None:
    """Print a clear error (no stack trace) and exit."""
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


def run(coro_fn: Callable[[], Awaitable[T]], expected: tuple[type[Exception], ...] = ()) -> T:
    """Run an async command, turning expected failures into one-line errors.

    `expected`: errors the command reports itself (the user's input, not a bug),
    raised on to it.
    """
    from sqlalchemy.exc import DBAPIError

    from bot.app.turn_processes import TurnWorkerError
    from storage.db import DatabaseUnavailableError
    from storage.embedded_postgres import EmbeddedPostgresError
    from storage.embeddings import EmbeddingMismatchError

    async def main() -> T:
        return await coro_fn()

    try:
        return asyncio.run(main())
    except expected:
        raise
    except (
        EmbeddingMismatchError,
        DatabaseUnavailableError,
        EmbeddedPostgresError,
        ConfigurationError,
        TurnWorkerError,
    ) as exc:
        fail(str(exc))
    except DBAPIError as exc:
        first = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else "unknown"
        fail(f"database error: {first}")
    except KeyboardInterrupt:
        fail("interrupted", code=130)
    except BrokenPipeError:  # the reader of the output left (`ragbot ask ... | head`)
        # output still buffered would fail again at exit: send it nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(141) from None  # as a shell reports a command ended by SIGPIPE
    except Exception as exc:  # a bug: say so in one line, details in the debug log
        logging.getLogger("ragbot").debug("unexpected error", exc_info=True)
        fail(f"unexpected {type(exc).__name__}: {exc} (LOG_LEVEL=DEBUG shows the traceback)")
    raise AssertionError("unreachable")
