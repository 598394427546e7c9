"""The arrival line on its own: a conversation's messages go on in arrival order."""

from __future__ import annotations

import asyncio

from bot.core.delivery.arrival_line import ArrivalLine, Place


async def _go(place: Place, name: str, went: list[str], hold: asyncio.Event | None = None) -> None:
    await place.reached()
    went.append(name)
    if hold is not None:
        await hold.wait()
    place.leave()


async def test_places_go_in_the_order_they_joined_and_other_conversations_do_not_wait() -> None:
    line = ArrivalLine()
    went: list[str] = []
    release = asyncio.Event()
    first, second, other = line.join("c"), line.join("c"), line.join("d")
    tasks = [
        asyncio.create_task(_go(second, "second", went)),  # scheduled first, joined second
        asyncio.create_task(_go(first, "first", went, release)),
        asyncio.create_task(_go(other, "other", went)),
    ]
    await asyncio.sleep(0.05)
    # the other conversation went while the first holds its place; the second waits
    assert went == ["first", "other"]
    release.set()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert went == ["first", "other", "second"]
    assert len(line) == 0  # empty lines are dropped


async def test_a_place_cancelled_while_waiting_lets_the_next_go_only_after_those_ahead() -> None:
    line = ArrivalLine()
    went: list[str] = []
    release = asyncio.Event()
    first, second, third = line.join("c"), line.join("c"), line.join("c")
    ahead = asyncio.create_task(_go(first, "first", went, release))
    waiting = asyncio.create_task(second.reached())
    behind = asyncio.create_task(_go(third, "third", went))
    await asyncio.sleep(0.05)
    waiting.cancel()  # a delivery drained while it waited
    second.leave()
    await asyncio.sleep(0.05)
    assert went == ["first"] and not first.left.done()  # the first one still holds its place
    release.set()
    await asyncio.wait_for(asyncio.gather(ahead, behind), 5)
    assert went == ["first", "third"]
    assert len(line) == 0


async def test_leaving_twice_or_before_reaching_is_harmless() -> None:
    line = ArrivalLine()
    only = line.join("c")
    only.leave()
    only.leave()
    await asyncio.wait_for(only.reached(), 1)
    after = line.join("c")
    await asyncio.wait_for(after.reached(), 1)  # nobody ahead any more
