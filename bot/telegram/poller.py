"""Long polling that confirms an update only once the core has taken it.

Telegram keeps handing out an update (getUpdates) until a call's `offset`
passes it. PTB's Updater moves the offset as soon as updates are fetched, so
a worker that dies, or a core that refuses (draining, Postgres down), loses
them. Here the updates of a batch are processed in order, and the offset moves
past one only after it was taken (see `bot.telegram.intake`); when one was
not, the poller backs off and asks again from that update. `stop()` stops
fetching at once (a long poll under way is abandoned, not waited for); what
was not confirmed is delivered again to the next poller, and the inbox makes
the repeat a no-op. Updates are fetched as JSON and parsed one by one: an update
that lacks the Bot API's shape is logged in one line and stepped over, instead
of failing its whole batch (and the batch after, for ever) in the library.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from telegram import Bot, Update
from telegram.error import Conflict, TelegramError, TimedOut
from telegram.warnings import PTBUserWarning

from bot.telegram.intake import parsed

logger = logging.getLogger(__name__)
POLL_TIMEOUT_S = 10  # long poll: Telegram answers at once when an update comes
MAX_BACKOFF_S = 30.0
CONFIRM_TIMEOUT_S = 3.0
READ_MARGIN_S = 10.0  # a long poll's answer may take this much longer than its timeout


class Poller:
    """getUpdates in a loop, for one bot; `process(update)` says whether it was taken."""

    def __init__(
        self,
        bot: Bot,
        process: Callable[[Update], Awaitable[bool]],
        allowed_updates: Sequence[str],
        timeout_s: int = POLL_TIMEOUT_S,
    ) -> None:
        # getUpdates is asked as raw JSON on purpose (the library parses a batch whole, and
        # one malformed update would lose the others): its "use Bot.getUpdates" warning
        # says nothing an operator can act on
        warnings.filterwarnings(
            "ignore", message=r"Please use 'Bot\.getUpdates'", category=PTBUserWarning
        )
        self._bot = bot
        self._process = process
        self._allowed = list(allowed_updates)
        self._timeout = timeout_s
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.offset: int | None = None  # the first update not yet taken
        self._confirmed: int | None = None  # the offset Telegram was last told

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start polling in the background."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="telegram poller")

    async def stop(self) -> None:
        """Stop fetching now; the update being handed to the core is finished first."""
        self._stopping.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 10)
            except TimeoutError:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
            self._task = None
        await self._confirm()

    async def _run(self) -> None:
        backoff = 0.0
        while not self._stopping.is_set():
            try:
                updates = await self._fetch()
            except Conflict as exc:
                logger.error(
                    "Telegram says another client polls with this token (%s); stop it, or use"
                    " webhook mode (TELEGRAM_WEBHOOK_URL)",
                    exc,
                )
                backoff = _more(backoff)
                await self._pause(backoff)
                continue
            except TimedOut:  # a long poll the network dropped: ask again
                continue
            except TelegramError as exc:
                logger.warning("polling Telegram failed: %s (retrying)", exc)
                backoff = _more(backoff)
                await self._pause(backoff)
                continue
            if updates is None:  # stopping
                break
            refused = False
            for update_id, update in updates:
                if self._stopping.is_set():
                    break
                if update is None:  # malformed: logged by `parsed`, never well-formed later
                    self.offset = update_id + 1
                    continue
                if not await self._take(update):
                    refused = True
                    self.offset = update.update_id  # asked for again, from this one
                    break
                self.offset = update.update_id + 1
            if refused:
                backoff = _more(backoff)
                logger.warning("update %s not taken: asking again in %.0f s", self.offset, backoff)
                await self._pause(backoff)
            else:
                backoff = 0.0

    async def _take(self, update: Update) -> bool:
        try:
            return await self._process(update)
        except Exception:  # never lose the loop to one update
            logger.exception("update %s failed", update.update_id)
            return False

    async def _fetch(self) -> list[tuple[int, Update | None]] | None:
        """The next batch, each update by its id and parsed (None: malformed), confirming
        what came before; None when stopping meanwhile."""
        offset = self.offset
        fetch = asyncio.ensure_future(self._get_updates(offset))
        stop = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({fetch, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not fetch.done():  # stopping: a long poll under way is abandoned
            fetch.cancel()
            with contextlib.suppress(asyncio.CancelledError, TelegramError):
                await fetch
            return None
        raw = fetch.result()
        self._confirmed = offset
        return [(int(data["update_id"]), parsed(data, self._bot)) for data in raw]

    async def _get_updates(self, offset: int | None) -> list[dict[str, Any]]:
        """getUpdates as JSON: the library's own call parses the batch whole."""
        kwargs: dict[str, Any] = {"timeout": self._timeout, "allowed_updates": self._allowed}
        if offset is not None:
            kwargs["offset"] = offset
        result = await self._bot.do_api_request(
            "getUpdates", api_kwargs=kwargs, read_timeout=self._timeout + READ_MARGIN_S
        )
        return [data for data in result if isinstance(data, dict) and "update_id" in data]

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)

    async def _confirm(self) -> None:
        """Tell Telegram what was taken since the last fetch (else the next poller repeats it)."""
        if self.offset is None or self.offset == self._confirmed:
            return
        try:
            await asyncio.wait_for(
                self._bot.get_updates(offset=self.offset, limit=1, timeout=0), CONFIRM_TIMEOUT_S
            )
            self._confirmed = self.offset
        except (TimeoutError, TelegramError) as exc:  # the inbox makes a repeat harmless
            logger.info("could not confirm Telegram updates before %s: %s", self.offset, exc)


def _more(backoff: float) -> float:
    return min(MAX_BACKOFF_S, max(1.0, backoff * 2))
