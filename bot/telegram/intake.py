"""How updates come in, and whether each was taken: the webhook's status code and the
poller's offset hang on it.

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

`Webhook` is `POST /telegram/webhook`: each update is checked against
TELEGRAM_WEBHOOK_SECRET (`X-Telegram-Bot-Api-Secret-Token`; wrong or missing:
401, nothing runs) and processed before the answer: 200 once taken (or a
repeat, or nothing for the bot), 503 when the core could not take it
(draining, Postgres down), so Telegram delivers it again.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from telegram import Bot, Update
from telegram.ext import Application

from bot.core.serving import ServingCore
from bot.telemetry.failures import brief

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


class Webhook:
    """`POST /telegram/webhook` for one Application: 200 only once the update was taken."""

    def __init__(
        self,
        core: ServingCore,
        app: Application,  # type: ignore[type-arg]
        secret: bytes,
    ) -> None:
        self._core = core
        self._app = app
        self._secret = secret

    async def handle(self, request: Request) -> Response:
        """Check the secret, process the update, then answer: 200 only once it was taken."""
        given = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "").encode()
        if not hmac.compare_digest(given, self._secret):
            return Response("wrong secret token", status_code=401)
        if self._core.closing:  # Telegram retries: another worker will take it
            return Response("shutting down", status_code=503)
        try:
            data = await request.json()
        except ValueError:
            return Response("not JSON", status_code=400)
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            return Response("not an update", status_code=400)
        if not await self._process_json(data):
            return Response("not taken, deliver again", status_code=503)
        return Response(status_code=200)

    async def _process_json(self, data: dict[str, Any]) -> bool:
        update = parsed(data, self._app.bot)
        return True if update is None else await process(self._app, update)


def parsed(data: dict[str, Any], bot: Bot) -> Update | None:
    """The update in `data`, or None when a field lacks the Bot API's shape (a keyboard
    without `inline_keyboard`, a sender that is a string): logged in one line and dropped
    as taken, since delivering it again cannot make it well-formed."""
    try:
        return Update.de_json(data, bot)
    except Exception as exc:  # python-telegram-bot raises KeyError, TypeError, AttributeError…
        logger.warning(
            "telegram update %s is malformed, dropped: %s", data.get("update_id"), brief(exc)
        )
        return None
