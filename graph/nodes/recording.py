"""The bookkeeping every node shares: its time in `timings_ms` and its `decision_path` entry.

A node decorated with `@recorded("planner")` returns a `Step`: the state keys
it changes and what it decided (its decision-path entry, or None for none).
The wrapper times the call into `timings_ms["planner"]` (summed across retry
loops by the state's reducer) and appends the decision, so the decorated node
returns one complete state update, as LangGraph and the tests call it. Time a
node spends waiting on a model (`llm:*`) stays the node's own key in its
`timings_ms`: only the node knows where the call began and ended.

A node decorated with `lane=True` is mostly CPU: it runs holding the run
context's `cpu_lane` (one such step of the process's turns at a time, in arrival
order; `graph.cpu_lane`), and the time it waited for the lane is added to
`timings_ms["lane"]`, not to the node's own.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, ParamSpec, Protocol, cast, overload

from graph.state import GraphState

P = ParamSpec("P")


class Step(NamedTuple):
    """What one run of a node did."""

    update: GraphState  # the state keys the node changes, with any `llm:*` timings it took
    decision: str | None  # its decision-path entry ("planner:simple_faq:rules"); None: none
    timed: bool = True  # False: the node stepped aside before its work (no time recorded)


class _Recorder(Protocol):
    @overload
    def __call__(
        self, node: Callable[P, Awaitable[Step | None]]
    ) -> Callable[P, Awaitable[GraphState]]: ...
    @overload
    def __call__(self, node: Callable[P, Step | None]) -> Callable[P, GraphState]: ...


def record(name: str, step: Step | None, start: float) -> GraphState:
    """The node's update with its time and decision added (nothing when it had nothing to do)."""
    if step is None:
        # the node's feature is off (e.g. no answer memory): it leaves no trace
        return {}
    update: GraphState = dict(step.update)  # type: ignore[assignment]
    elapsed = round((time.perf_counter() - start) * 1000, 3)
    # the node's own time first, then its `llm:*` waits
    if step.timed:
        update["timings_ms"] = {name: elapsed, **step.update.get("timings_ms", {})}
    if step.decision is not None:
        # entries the node noted on the way (e.g. each model claim dropped) come first
        update["decision_path"] = [*step.update.get("decision_path", []), step.decision]
    return update


def _lane_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, float]:
    """The run context's CPU lane (the node's `runtime`, by keyword or second), or None,
    and the seconds this turn may still wait for it (its patience less what the turn's
    earlier steps waited: `timings_ms["lane"]` of the state, the node's first argument)."""
    runtime = kwargs.get("runtime", args[1] if len(args) > 1 else None)
    lane = getattr(getattr(runtime, "context", None), "cpu_lane", None)
    if lane is None:
        return None, 0.0
    state = args[0] if args and isinstance(args[0], dict) else {}
    waited_ms = float((state.get("timings_ms") or {}).get("lane", 0.0))
    return lane, lane.patience_s - waited_ms / 1000


def recorded(name: str, lane: bool = False) -> _Recorder:
    """Decorate a node (sync or async) so its time and decision are recorded under `name`.

    The node may return None when it had nothing to do: then nothing is recorded.
    `lane`: an async node that is mostly CPU, run holding the run's CPU lane.
    """

    def decorate(node: Callable[..., Any]) -> Callable[..., Any]:
        # functools.wraps keeps the node's signature: LangGraph injects `runtime`
        # only into nodes whose signature asks for it
        if inspect.iscoroutinefunction(node):

            @functools.wraps(node)
            async def run_async(*args: Any, **kwargs: Any) -> GraphState:
                cpu_lane, patience = _lane_of(args, kwargs) if lane else (None, 0.0)
                asked = time.perf_counter()
                # holding the lane, the node's CPU work runs on the loop's thread (cpu_lane)
                held = cpu_lane.held(max(0.0, patience)) if cpu_lane else contextlib.nullcontext()
                async with held:
                    start = time.perf_counter()
                    update = record(name, await node(*args, **kwargs), start)
                if cpu_lane and update:  # the wait beside the node's own time (turn's sum)
                    waited = round((start - asked) * 1000, 3)
                    update["timings_ms"] = {**update.get("timings_ms", {}), "lane": waited}
                return update

            return run_async

        @functools.wraps(node)
        def run(*args: Any, **kwargs: Any) -> GraphState:
            start = time.perf_counter()
            return record(name, node(*args, **kwargs), start)

        return run

    return cast(_Recorder, decorate)
