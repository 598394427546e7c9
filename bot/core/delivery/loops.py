"""Kept for the Slack and Telegram adapters' calls until they drop them: a passthrough.

`ragbot serve` handles every HTTP request on the core's loop (`bot.app.bridge`
wraps the app once), so core work is simply awaited where it is. Nothing new
should call this.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


async def on_core_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await `coro` here: request handlers already run on the core's loop."""
    return await coro
