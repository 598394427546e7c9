"""AckWindow: a delivery's work waits while messages are being accepted, but never long."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.core.delivery.ack_window import AckWindow


async def test_quiet_returns_at_once_when_nothing_is_being_accepted() -> None:
    window = AckWindow(longest_s=5.0)
    began = time.monotonic()
    await window.quiet()
    assert time.monotonic() - began < 0.1


async def test_quiet_waits_for_every_acceptance_in_flight_to_end() -> None:
    window = AckWindow(longest_s=5.0)
    first, second = asyncio.Event(), asyncio.Event()

    async def accepting(release: asyncio.Event) -> None:
        with window.accept():
            await release.wait()

    tasks = [asyncio.create_task(accepting(first)), asyncio.create_task(accepting(second))]
    await asyncio.sleep(0)
    assert window.accepting == 2
    waiter = asyncio.create_task(window.quiet())
    first.set()
    await asyncio.sleep(0.05)
    assert not waiter.done()  # one acknowledgement still pending
    second.set()
    await asyncio.wait_for(waiter, 1.0)
    await asyncio.gather(*tasks)
    assert window.accepting == 0


async def test_quiet_gives_up_waiting_after_the_longest_wait() -> None:
    # arrivals that never stop must not hold a turn back for more than longest_s
    window = AckWindow(longest_s=0.2)
    never = asyncio.Event()

    async def stuck() -> None:
        with window.accept():
            await never.wait()

    task = asyncio.create_task(stuck())
    await asyncio.sleep(0)
    began = time.monotonic()
    await window.quiet()
    waited = time.monotonic() - began
    assert 0.15 <= waited < 1.5
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert window.accepting == 0  # a cancelled acceptance counts out too


async def test_a_failed_acceptance_counts_out() -> None:
    window = AckWindow(longest_s=5.0)
    with pytest.raises(RuntimeError), window.accept():
        raise RuntimeError("the database is down")
    assert window.accepting == 0
    began = time.monotonic()
    await window.quiet()
    assert time.monotonic() - began < 0.1
