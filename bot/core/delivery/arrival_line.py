"""A conversation's messages go on in the order they arrived, up to where order is kept.

A delivery starts learning who sent it before its turn (`PendingAudiences`),
and that takes longer for one sender than another (a platform lookup, or one
shared with an earlier message). Without a line, the second of two messages
sent together could pass the first there: a staff member's second reply
relayed first, a follow-up answered before its question. Each message joins
its conversation's line when the core accepts it (one the sweep takes from the
inbox: when this worker starts it) and leaves once its place is kept
elsewhere: in the conversation's lock queue for a turn, or with its relay
stored. The next one waits only until then, never for a whole turn.
"""

from __future__ import annotations

import asyncio


class Place:
    """One delivery's place in its conversation's line."""

    def __init__(self, before: asyncio.Future[None] | None) -> None:
        self._before = before
        self.left: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def reached(self) -> None:
        """Wait until every earlier message of the conversation has left the line."""
        if self._before is not None and not self._before.done():
            # wait() and not await: a cancelled waiter must not cancel the one ahead
            await asyncio.wait([self._before])

    def leave(self) -> None:
        """Let the next message go on (again: no effect). Leaving before reaching the
        front (a cancelled delivery) lets the next go only once those ahead have left."""
        if self.left.done():
            return
        if self._before is None or self._before.done():
            self.left.set_result(None)
        else:
            self._before.add_done_callback(self._leave_after)

    def _leave_after(self, _before: asyncio.Future[None]) -> None:
        if not self.left.done():
            self.left.set_result(None)


class ArrivalLine:
    """The lines of this worker's conversations; a line is dropped when it empties."""

    def __init__(self) -> None:
        self._last: dict[str, asyncio.Future[None]] = {}

    def join(self, key: str) -> Place:
        """A place at the back of conversation `key`'s line (call in arrival order)."""
        place = Place(self._last.get(key))
        self._last[key] = place.left
        place.left.add_done_callback(lambda left: self._drop(key, left))
        return place

    def _drop(self, key: str, left: asyncio.Future[None]) -> None:
        if self._last.get(key) is left:  # the last place left: nobody is in line
            del self._last[key]

    def __len__(self) -> int:
        """How many conversations have someone in line."""
        return len(self._last)
