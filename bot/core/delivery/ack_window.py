"""Acknowledgements first: the work a message starts waits while others are being accepted.

A platform waits for each message's acknowledgement (Slack gives up after 3 s
and sends it again), and the acknowledgement waits for the message's inbox
write on the core's loop. When twenty messages arrive at once, the turns the
first ones start (who sent it, a platform lookup each; storing what was
learned; a turn's start) run on the same loop and the same cores as the
remaining acknowledgements, and every acknowledgement ends up waiting for
most of that work. So a delivery's work begins once no acknowledgement is
pending, or after `longest_s` whatever happens: a steady stream of arrivals
must never hold a turn back for long. The total work is the same; the
acknowledgements come out of it first.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

# the longest a started delivery lets other messages' acknowledgements go first
ACK_FIRST_S = 0.25


class AckWindow:
    """Counts the messages being accepted; `quiet()` waits until there are none."""

    def __init__(self, longest_s: float) -> None:
        self._longest_s = longest_s
        self._accepting = 0
        self._quiet = asyncio.Event()
        self._quiet.set()

    @property
    def accepting(self) -> int:
        """Messages whose acknowledgement is being prepared now."""
        return self._accepting

    @contextlib.contextmanager
    def accept(self) -> Iterator[None]:
        """Around one message's acceptance (its inbox write), however it ends."""
        self._accepting += 1
        self._quiet.clear()
        try:
            yield
        finally:
            self._accepting -= 1
            if not self._accepting:
                self._quiet.set()

    async def quiet(self) -> None:
        """Return once no message is being accepted, or after `longest_s` at most."""
        if self._accepting and self._longest_s > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._quiet.wait(), self._longest_s)
