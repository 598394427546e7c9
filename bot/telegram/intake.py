"""Whether an update was taken: the webhook's status code and the poller's offset hang on it.

An update is acknowledged to Telegram (the webhook answers 200, the poller
moves its offset past it) only once the core has it: a message accepted into
the inbox, a button or command claimed. PTB's Application hands a listener's
exception to the error handler and returns normally, so the listeners say it
themselves: the steps before acceptance run inside `accepting()`, which marks
the update being processed as refused when they raise (draining, Postgres
down). `process` runs one update through the Application and tells which it
was. The mark lives in a context variable set per processing, not in a table
keyed by update id: the same update posted twice at once (Telegram retrying a
slow webhook) is two processings, each with its own answer.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from telegram import Update
from telegram.ext import Application

logger = logging.getLogger(__name__)


@dataclass
class _Outcome:
    refused: BaseException | None = None


_current: ContextVar[_Outcome | None] = ContextVar("telegram_update_outcome", default=None)


@contextlib.contextmanager
def accepting() -> Iterator[None]:
    """Run the steps that take an update; if they raise, the update is not acknowledged."""
    try:
        yield
    except Exception as exc:
        outcome = _current.get()
        if outcome is not None:
            outcome.refused = exc
        raise


async def process(app: Application, update: Update) -> bool:  # type: ignore[type-arg]
    """Run `update` through the listeners; False when it must not be acknowledged."""
    outcome = _Outcome()
    token = _current.set(outcome)
    try:
        # handlers are blocking (PTB's default): awaited here, in this context
        await app.process_update(update)
    except Exception as exc:  # the Application itself failed: nothing was taken
        logger.warning("update %s not processed: %s", update.update_id, exc)
        outcome.refused = exc
    finally:
        _current.reset(token)
    if outcome.refused is not None:
        logger.info(
            "update %s not taken (%s): Telegram delivers it again",
            update.update_id,
            type(outcome.refused).__name__,
        )
    return outcome.refused is None
