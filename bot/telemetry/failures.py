"""One line per failure in the log: what failed, the error's class and first line.

A database outage fails every turn the same way; a full traceback a failure
(SQLAlchemy's chain is ~100 lines, several per turn) buried the log in hundreds
of lines a turn. The traceback is kept for LOG_LEVEL=DEBUG. The line goes through
the log handlers like any other, so their masking applies to the error's text.
"""

from __future__ import annotations

import logging

MAX_DETAIL = 200  # characters of the error's first line


def brief(exc: BaseException) -> str:
    """`ErrorClass: first line of its message` (cut at MAX_DETAIL characters)."""
    lines = str(exc).strip().splitlines()
    first = lines[0][:MAX_DETAIL] if lines else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def log_failure(
    logger: logging.Logger, what: str, exc: BaseException, level: int = logging.ERROR
) -> None:
    """Log `what` failed with `exc` in one line at `level`; the traceback only at DEBUG."""
    logger.log(level, "%s (%s)", what, brief(exc))
    logger.debug("%s: traceback", what, exc_info=exc)
