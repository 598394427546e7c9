"""The turns that can be stopped now: each one's asker may press Stop while it runs.

A turn is known by its delivery (platform, delivery id), which the Stop button
carries: a button left on an old message can never stop a newer turn. Only
the asker may stop a turn. A press reaching a worker that does not run the
turn is passed to the other workers (`StopNotices`, Postgres NOTIFY), each of
which stops it if it runs there.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass
class RunningTurn:
    """One turn in flight: who asked, and the event that stops it."""

    asker: str
    stop: asyncio.Event = field(default_factory=asyncio.Event)


class TurnStops:
    """The turns running on this worker, by (platform, delivery id)."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, str], RunningTurn] = {}

    def open(self, platform: str, delivery_id: str, asker: str) -> asyncio.Event:
        """Register a turn about to run; the event it is handed is set by a Stop."""
        turn = RunningTurn(asker)
        self._running[(platform, delivery_id)] = turn
        return turn.stop

    def close(self, platform: str, delivery_id: str) -> None:
        """The turn ended (answered, stopped, failed or cancelled)."""
        self._running.pop((platform, delivery_id), None)

    def stop(self, platform: str, delivery_id: str, user: str) -> str:
        """Stop the turn if `user` asked it: "stopped", "not_yours" or "unknown" (not
        running on this worker: finished already, or another worker's)."""
        turn = self._running.get((platform, delivery_id))
        if turn is None:
            return "unknown"
        if turn.asker != user:
            return "not_yours"
        turn.stop.set()
        return "stopped"
