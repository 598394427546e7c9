"""Postgres NOTIFY between workers: a short message every worker listening on a channel gets.

For what one worker learns and another must act on at once (a Stop pressed on
the worker that does not run the turn). Delivered only to workers listening
at that moment: callers use it for what is worth nothing later.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from sqlalchemy import text

from storage.db import Database

_CHANNEL_NAME = frozenset("abcdefghijklmnopqrstuvwxyz_")


async def notify(db: Database, channel: str, payload: str) -> None:
    """Send `payload` (under 8,000 bytes) to every worker listening on `channel`."""
    async with db.transaction() as session:
        await session.execute(
            text("SELECT pg_notify(:channel, :payload)"),
            {
                "channel": channel,
                "payload": payload,
            },
        )


async def listen(db: Database, channel: str, check_every_s: float = 30.0) -> AsyncIterator[str]:
    """The payloads sent on `channel` from now on, on a connection of its own.

    The connection is checked every `check_every_s` (a half-open one, after a
    failover, would otherwise wait forever) and a lost one ends the iteration
    with the driver's error. When it ends the connection is discarded, never
    returned to the pool still listening.
    """
    if not channel or not set(channel) <= _CHANNEL_NAME:  # LISTEN takes no parameters
        raise ValueError(f"bad channel name {channel!r}")
    conn = await db.engine.connect()
    try:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        raw = await conn.get_raw_connection()
        driver = raw.driver_connection
        assert driver is not None
        await driver.execute(f"LISTEN {channel}")
        while True:
            async for notice in driver.notifies(timeout=check_every_s):
                yield notice.payload
            await driver.execute("SELECT 1")  # quiet for a while: is it still there?
    finally:
        await conn.invalidate()  # never back into the pool while listening
        await conn.close()
