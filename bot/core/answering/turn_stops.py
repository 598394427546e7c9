"""The turns that can be stopped now: each one's asker may press Stop while it runs.

A turn is known by its delivery (platform, delivery id), which the Stop button
carries: a button left on an old message can never stop a newer turn. Only
the asker may stop a turn. A press reaching a worker that does not run the
turn (Slack and webhooks send a press to any worker) is passed on to the
others through Postgres (NOTIFY), and the worker running it stops it there,
for its asker only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

from storage import notices
from storage.db import Database

logger = logging.getLogger(__name__)
CHANNEL = "ragbot_stop"
RELISTEN_S = (1.0, 30.0)  # after a lost connection: first wait, longest wait


@dataclass
class RunningTurn:
    """One turn in flight: who asked, and the event that stops it."""

    asker: str
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    aliases: list[str] = field(default_factory=list)  # other names of it (a draft's)


class TurnStops:
    """The turns running on this worker, by (platform, delivery id), and the relay of
    presses between workers."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._running: dict[tuple[str, str], RunningTurn] = {}
        self._aliases: dict[tuple[str, str], str] = {}  # (platform, alias) → delivery id
        self._relay: asyncio.Task[None] | None = None

    @contextlib.contextmanager
    def running(self, platform: str, delivery_id: str, asker: str) -> Iterator[asyncio.Event]:
        """A turn known while the block runs; the event it is handed is set by a Stop."""
        turn = RunningTurn(asker)
        self._running[(platform, delivery_id)] = turn
        try:
            yield turn.stop
        finally:  # answered, stopped, failed or cancelled
            self._running.pop((platform, delivery_id), None)
            for alias in turn.aliases:
                self._aliases.pop((platform, alias), None)

    def alias(self, platform: str, alias: str, delivery_id: str) -> None:
        """Another name a Stop may give the running turn (Telegram's stop button names the
        draft, not the delivery); forgotten when the turn ends."""
        turn = self._running.get((platform, delivery_id))
        if turn is not None:
            turn.aliases.append(alias)
            self._aliases[(platform, alias)] = delivery_id

    def stop_here(self, platform: str, delivery_id: str, user: str) -> str:
        """Stop the turn if it runs on this worker and `user` asked it: "stopped",
        "not_yours" or "unknown" (not running here)."""
        delivery_id = self._aliases.get((platform, delivery_id), delivery_id)
        turn = self._running.get((platform, delivery_id))
        if turn is None:
            return "unknown"
        if turn.asker != user:
            return "not_yours"
        turn.stop.set()
        return "stopped"

    async def stop(self, platform: str, delivery_id: str, user: str) -> str:
        """Stop the turn wherever it runs: as `stop_here`, but a turn not running here is
        asked of the other workers ("passed"; it may be over already)."""
        outcome = self.stop_here(platform, delivery_id, user)
        if outcome != "unknown" or self._relay is None:
            return outcome
        payload = json.dumps({"platform": platform, "delivery": delivery_id, "user": user})
        try:
            await notices.notify(self._db, CHANNEL, payload)
        except Exception:  # the database is down: nothing can be passed on
            logger.warning("a stop could not be passed to the other workers", exc_info=True)
            return "unknown"
        return "passed"

    def start_relay(self) -> None:
        """Listen for presses made on the other workers (`ragbot serve`)."""
        if self._relay is None:
            self._relay = asyncio.create_task(self._listen(), name="turn-stops")

    async def stop_relay(self) -> None:
        """Stop listening."""
        if self._relay is not None:
            self._relay.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._relay
            self._relay = None

    async def _listen(self) -> None:
        wait = RELISTEN_S[0]
        while True:
            try:
                async for payload in notices.listen(self._db, CHANNEL):
                    wait = RELISTEN_S[0]
                    self._from_elsewhere(payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database went away: listen again when it is back
                logger.warning("stop relay lost its connection (%s); again in %.0f s", exc, wait)
            await asyncio.sleep(wait)
            wait = min(wait * 2, RELISTEN_S[1])

    def _from_elsewhere(self, payload: str) -> None:
        try:
            asked = json.loads(payload)
            self.stop_here(str(asked["platform"]), str(asked["delivery"]), str(asked["user"]))
        except (ValueError, KeyError, TypeError):
            logger.warning("a stop from another worker could not be read")
