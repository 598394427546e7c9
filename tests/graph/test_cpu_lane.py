"""The CPU lane: a process's turns take their CPU steps one at a time, in arrival order."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph.cpu_lane import CpuLane
from graph.nodes.tool_executor import tool_executor
from graph.state import GraphState, Plan
from storage.cpu_work import INLINE_MAX_CHARS, cpu_work
from tests.support.node_fakes import Hit, runtime

PLAN: Plan = {"tool_calls": [{"name": "retrieve_documents", "args": {}}]}


@dataclass
class WorkingSearcher:
    """A search that is CPU between its database waits: 5 pieces of `piece_s` each."""

    piece_s: float = 0.01
    done: list[float] = field(default_factory=list)

    async def search(self, query: str, top_k: int = 5, **_: Any) -> list[Hit]:
        for _piece in range(5):
            end = time.perf_counter() + self.piece_s
            while time.perf_counter() < end:  # the interpreter busy: embedding, ranking
                pass
            await asyncio.sleep(0)  # a database round trip: other turns run meanwhile
        self.done.append(time.perf_counter())
        return [Hit(1, 0.9)]


async def _searches_at_once(lane: CpuLane | None, turns: int) -> list[float]:
    """When each of `turns` searches started together finished, seconds after the start."""
    searcher = WorkingSearcher()
    rt, _ = runtime(searcher=searcher, cpu_lane=lane)
    start = time.perf_counter()
    states: list[GraphState] = [
        {"plan": PLAN, "retrieval": {"query": f"q{n}"}} for n in range(turns)
    ]
    outs = await asyncio.gather(*(tool_executor(s, rt) for s in states))
    assert all(o["candidates"] for o in outs)
    return sorted(t - start for t in searcher.done)


async def test_searches_arriving_together_finish_one_after_another_not_all_late() -> None:
    shared = await _searches_at_once(None, 6)
    laned = await _searches_at_once(CpuLane(), 6)
    # without a lane every search is done only when all are (round-robin at each wait);
    # with it the first is done after its own work, and the last no later than before
    assert shared[0] > 0.7 * shared[-1]
    assert laned[0] < 0.3 * laned[-1]
    assert laned[-1] < shared[-1] * 1.5


async def test_the_wait_for_the_lane_is_recorded_apart_from_the_steps_own_time() -> None:
    lane = CpuLane()
    rt, _ = runtime(searcher=WorkingSearcher(), cpu_lane=lane)
    states: list[GraphState] = [{"plan": PLAN, "retrieval": {"query": f"q{n}"}} for n in range(2)]
    first, second = await asyncio.gather(*(tool_executor(s, rt) for s in states))
    assert first["timings_ms"]["lane"] < second["timings_ms"]["lane"]
    assert second["timings_ms"]["lane"] >= 40  # the first one's five 10 ms pieces
    assert second["timings_ms"]["tool_executor"] >= 40  # its own five, not the wait


async def test_a_turn_that_waited_its_patience_waits_no_more_in_its_later_steps() -> None:
    lane = CpuLane(patience_s=0.3)
    release = asyncio.Event()

    async def holder() -> None:
        async with lane.held():
            await release.wait()  # e.g. a step waiting on a slow database

    held = asyncio.create_task(holder())
    await asyncio.sleep(0)
    rt, _ = runtime(searcher=WorkingSearcher(piece_s=0.0), cpu_lane=lane)
    state: GraphState = {"plan": PLAN, "retrieval": {"query": "q"}}
    started = time.perf_counter()
    out = await tool_executor(state, rt)
    assert 280 <= out["timings_ms"]["lane"] < 1000  # went on once out of patience
    state["timings_ms"] = out["timings_ms"]  # the turn's later search (another loop)
    again = await tool_executor(state, rt)
    assert again["timings_ms"]["lane"] < 50  # no patience left: no wait
    assert time.perf_counter() - started < 1.5
    release.set()
    await held


async def _held_step(
    lane: CpuLane, name: str, order: list[str], release: asyncio.Event, holder: str
) -> None:
    """A step that notes when it got the lane; `holder` keeps it until `release`."""
    async with lane.held():
        order.append(name)
        if name == holder:
            await release.wait()


async def test_a_holder_waiting_long_delays_the_others_by_the_patience_only() -> None:
    lane = CpuLane(patience_s=0.1)
    order: list[str] = []
    release = asyncio.Event()

    def step(name: str) -> Any:
        # "slow" waits inside the lane: e.g. a slow network call inside a CPU step
        return _held_step(lane, name, order, release, holder="slow")

    slow = asyncio.create_task(step("slow"))
    await asyncio.sleep(0)
    started = time.perf_counter()
    await step("patient")
    assert time.perf_counter() - started >= 0.09  # went on without the lane
    assert order == ["slow", "patient"]
    release.set()
    await slow
    started = time.perf_counter()
    async with lane.held(patience_s=0):  # free again: taken without any wait
        assert time.perf_counter() - started < 0.05


async def test_waiters_are_served_in_arrival_order_and_a_cancelled_one_is_skipped() -> None:
    lane = CpuLane(patience_s=30)
    order: list[str] = []
    release = asyncio.Event()

    def step(name: str) -> Any:
        return _held_step(lane, name, order, release, holder="first")

    tasks = {n: asyncio.create_task(step(n)) for n in ("first", "second", "gone", "third")}
    while len(lane._waiting) < 3:  # the three behind the first are in line
        await asyncio.sleep(0.01)
    tasks["gone"].cancel()
    release.set()
    # the cancelled one hands nothing over and blocks no one: all done well within patience
    await asyncio.wait_for(asyncio.gather(*tasks.values(), return_exceptions=True), 5)
    assert order == ["first", "second", "third"]
    with pytest.raises(asyncio.CancelledError):
        await tasks["gone"]
    async with lane.held(patience_s=0):  # and the lane is free
        assert not lane._waiting


@dataclass
class ThreadNotingSearcher:
    """A search that notes which thread its CPU work ran on (as the real one's jieba and
    embedding go through `cpu_work`), and can wait on a 'database' while it holds."""

    hold_s: float = 0.0
    threads: list[int] = field(default_factory=list)

    async def search(self, query: str, top_k: int = 5, **_: Any) -> list[Hit]:
        self.threads.append(await cpu_work(len(query), threading.get_ident))
        await asyncio.sleep(self.hold_s)
        return [Hit(1, 0.9)]


async def test_the_lane_holders_cpu_work_runs_on_the_loops_thread() -> None:
    """Holding the lane, a step's CPU work does not queue for the interpreter behind the
    loop's other work in a thread: it runs inline. Without a lane it goes to a thread."""
    loop_thread = threading.get_ident()
    laned = ThreadNotingSearcher()
    rt, _ = runtime(searcher=laned, cpu_lane=CpuLane())
    await tool_executor({"plan": PLAN, "retrieval": {"query": "q"}}, rt)
    assert laned.threads == [loop_thread]

    plain = ThreadNotingSearcher()
    rt, _ = runtime(searcher=plain, cpu_lane=None)
    await tool_executor({"plan": PLAN, "retrieval": {"query": "q"}}, rt)
    assert plain.threads and plain.threads[0] != loop_thread


async def test_a_turn_that_goes_on_without_the_lane_keeps_its_cpu_work_in_a_thread() -> None:
    """A turn out of patience must not block the loop (and with it the lane's holder)."""
    loop_thread = threading.get_ident()
    searcher = ThreadNotingSearcher(hold_s=0.3)
    rt, _ = runtime(searcher=searcher, cpu_lane=CpuLane(patience_s=0.05))
    states: list[GraphState] = [{"plan": PLAN, "retrieval": {"query": f"q{n}"}} for n in range(2)]
    await asyncio.gather(*(tool_executor(s, rt) for s in states))
    holder, impatient = searcher.threads
    assert holder == loop_thread and impatient != loop_thread


async def test_the_holders_work_on_a_long_text_still_goes_to_a_thread() -> None:
    """No input holds the loop for long: a long message's jieba and embedding are not
    run inline, lane or not."""
    loop_thread = threading.get_ident()
    searcher = ThreadNotingSearcher()
    rt, _ = runtime(searcher=searcher, cpu_lane=CpuLane())
    long_query = "x" * (INLINE_MAX_CHARS + 1)
    await tool_executor({"plan": PLAN, "retrieval": {"query": long_query}}, rt)
    assert searcher.threads and searcher.threads[0] != loop_thread
