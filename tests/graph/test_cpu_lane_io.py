"""The CPU lane's holder steps out while it waits on the database, and comes back first."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from graph.cpu_lane import CpuLane
from graph.nodes.tool_executor import tool_executor
from storage.cpu_work import waiting_on_io
from storage.search import HybridSearcher
from tests.support.node_fakes import Hit, runtime

PLAN = {"tool_calls": [{"name": "retrieve_documents", "args": {}}]}


def _busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:  # the interpreter busy: embedding, ranking
        pass


@dataclass
class QueryingSearcher:
    """A search of CPU, a database wait, then CPU again (as the real one's embedding,
    queries, and ranking); `step_out`: the wait is marked as one (`waiting_on_io`)."""

    step_out: bool
    cpu_s: float = 0.03
    db_s: float = 0.06
    done: dict[str, float] = field(default_factory=dict)

    async def search(self, query: str, top_k: int = 5, **_: Any) -> list[Hit]:
        _busy(self.cpu_s)
        if self.step_out:
            async with waiting_on_io():
                await asyncio.sleep(self.db_s)
        else:
            await asyncio.sleep(self.db_s)
        _busy(self.cpu_s)
        self.done[query] = time.perf_counter()
        return [Hit(1, 0.9)]


async def _two_turns(step_out: bool) -> tuple[float, float, list[dict[str, Any]]]:
    searcher = QueryingSearcher(step_out)
    rt, _ = runtime(searcher=searcher, cpu_lane=CpuLane(patience_s=5))
    states: list[Any] = [{"plan": PLAN, "retrieval": {"query": q}} for q in ("q1", "q2")]
    start = time.perf_counter()
    outs = await asyncio.gather(*(tool_executor(s, rt) for s in states))  # type: ignore[arg-type]
    return searcher.done["q1"] - start, searcher.done["q2"] - start, outs


async def test_the_next_turn_works_while_the_holder_waits_on_the_database() -> None:
    kept_first, kept_second, _ = await _two_turns(step_out=False)
    lent_first, lent_second, outs = await _two_turns(step_out=True)
    # held through its wait, the first turn's 0.06 s of database is the second's wait too
    # (0.24 s for both); stepping out, the second's CPU runs meanwhile (about 0.15 s)
    assert kept_second >= 0.22
    assert lent_second < kept_second - 0.05
    # coming back first in line, the first turn is not delayed by the second
    assert lent_first < lent_second
    assert lent_first < kept_first + 0.05
    # the second turn waited for the first's CPU, not for its database wait
    assert outs[1]["timings_ms"]["lane"] < 50


async def test_a_holder_back_from_its_wait_goes_before_the_turns_that_had_no_lane() -> None:
    lane = CpuLane(patience_s=5)
    order: list[str] = []
    back = asyncio.Event()

    async def querying() -> None:
        async with lane.held() as hold:
            order.append("q:cpu")
            async with hold.stepping_out():
                await back.wait()  # the database
            order.append(f"q:back holds={hold.holds}")

    async def plain(name: str, release: asyncio.Event | None = None) -> None:
        async with lane.held():
            order.append(name)
            if release is not None:
                await release.wait()

    release = asyncio.Event()
    q = asyncio.create_task(querying())
    await asyncio.sleep(0)
    a = asyncio.create_task(plain("a", release))  # gets the lane while q waits
    b = asyncio.create_task(plain("b"))  # in line behind a
    while order != ["q:cpu", "a"] or len(lane._waiting) < 1:
        await asyncio.sleep(0.005)
    back.set()  # q is back while a holds the lane: in line, ahead of b
    while len(lane._waiting) < 2:
        await asyncio.sleep(0.005)
    release.set()
    await asyncio.wait_for(asyncio.gather(q, a, b), 5)
    assert order == ["q:cpu", "a", "q:back holds=True", "b"]
    async with lane.held(patience_s=0) as hold:  # and nothing holds it now
        assert hold.holds


async def test_two_waits_of_one_step_at_once_lend_the_lane_once_and_take_it_back_once() -> None:
    lane = CpuLane(patience_s=5)
    first_done = asyncio.Event()
    seen: dict[str, bool] = {}

    async def part(name: str, wait_s: float) -> None:
        async with waiting_on_io():
            await asyncio.sleep(wait_s)
        seen[name] = hold.holds

    async with lane.held() as hold:
        other = asyncio.create_task(_take_and_note(lane, first_done))
        await asyncio.gather(part("short", 0.02), part("long", 0.08))
        assert first_done.is_set()  # the other step had the lane during the waits
        await other
    # the part back first goes on without the lane (its CPU work to a thread); the
    # last back takes it again
    assert seen == {"short": False, "long": True}
    async with lane.held(patience_s=0) as again:
        assert again.holds


async def _take_and_note(lane: CpuLane, done: asyncio.Event) -> None:
    async with lane.held():
        done.set()


async def test_a_step_cancelled_in_its_wait_leaves_the_lane_free() -> None:
    lane = CpuLane(patience_s=5)
    waiting = asyncio.Event()

    async def step() -> None:
        async with lane.held(), waiting_on_io():
            waiting.set()
            await asyncio.sleep(10)

    task = asyncio.create_task(step())
    await waiting.wait()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    async with lane.held(patience_s=0) as hold:
        assert hold.holds and not lane._waiting


async def test_the_wait_to_come_back_is_the_lanes_time_not_the_steps_own() -> None:
    lane = CpuLane(patience_s=5)
    searcher = QueryingSearcher(step_out=True, cpu_s=0.0, db_s=0.01)
    rt, _ = runtime(searcher=searcher, cpu_lane=lane)
    blocker_in = asyncio.Event()
    release = asyncio.Event()

    async def blocker() -> None:
        await asyncio.sleep(0.005)  # takes the lane once the search stepped out
        async with lane.held():
            blocker_in.set()
            await asyncio.sleep(0.2)  # a long step: the search comes back meanwhile
            release.set()

    holder = asyncio.create_task(blocker())
    state: Any = {"plan": PLAN, "retrieval": {"query": "q"}}
    out = await tool_executor(state, rt)
    await holder
    assert blocker_in.is_set() and release.is_set()
    assert out["timings_ms"]["lane"] >= 150  # came back behind the long step
    assert out["timings_ms"]["tool_executor"] < 100  # its own 0.01 s and little more


async def test_the_real_search_passes_the_lane_on_during_its_queries(
    searcher: HybridSearcher,
) -> None:
    lane = CpuLane(patience_s=5)
    got_lane: list[float] = []

    async def other() -> None:
        async with lane.held():
            got_lane.append(time.perf_counter())

    async with lane.held() as hold:
        assert hold.holds
        waiter = asyncio.create_task(other())
        await asyncio.sleep(0)  # in line
        await searcher.search("How are passports renewed?")
        searched = time.perf_counter()
        assert hold.holds  # back in the lane for the rest of the step
    await waiter
    assert got_lane and got_lane[0] < searched  # it ran while the queries did
