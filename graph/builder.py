"""The one place the graph is wired: eleven nodes and four routing functions."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from langgraph.graph import END, START, StateGraph

from graph.context import GraphContext
from graph.nodes.consolidate_memory import consolidate_memory
from graph.nodes.followup_transform import followup_transform
from graph.nodes.guard import guard
from graph.nodes.language_normalizer import language_normalizer
from graph.nodes.planner import planner
from graph.nodes.query_builder import query_builder
from graph.nodes.response_synth import response_synth
from graph.nodes.retrieval_checker import retrieval_checker
from graph.nodes.retrieve_memory import retrieve_memory
from graph.nodes.telemetry import telemetry
from graph.nodes.tool_executor import tool_executor
from graph.routing import (
    route_after_guard,
    route_after_memory,
    route_after_planner,
    route_after_retrieval_checker,
)
from graph.state import GraphState

T = TypeVar("T")


def inline(step: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """A sync node or routing function, run on the event loop rather than in a thread.

    An async run of LangGraph hands every sync callable to a thread pool: a hop per
    call, eight or more a turn, each waiting for the interpreter lock behind the
    turns under way. These steps are short and pure (no I/O): inline they cost less
    than the hop. The signature is kept (LangGraph injects `runtime` by it).
    """
    if inspect.iscoroutinefunction(step):
        return step

    @functools.wraps(step)
    async def run(*args: Any, **kwargs: Any) -> T:
        return step(*args, **kwargs)

    return run


def build_graph() -> Any:
    """Compile the pipeline."""
    graph = StateGraph(GraphState, context_schema=GraphContext)
    graph.add_node("guard", inline(guard))
    graph.add_node("language_normalizer", inline(language_normalizer))
    graph.add_node("retrieve_memory", inline(retrieve_memory))
    graph.add_node("planner", inline(planner))
    graph.add_node("followup_transform", inline(followup_transform))
    graph.add_node("query_builder", inline(query_builder))
    graph.add_node("tool_executor", inline(tool_executor))
    graph.add_node("retrieval_checker", inline(retrieval_checker))
    graph.add_node("response_synth", inline(response_synth))
    graph.add_node("consolidate_memory", inline(consolidate_memory))
    graph.add_node("telemetry", inline(telemetry))

    graph.add_edge(START, "guard")
    graph.add_conditional_edges(
        "guard", inline(route_after_guard), ["language_normalizer", "telemetry"]
    )
    graph.add_edge("language_normalizer", "retrieve_memory")
    graph.add_conditional_edges(
        "retrieve_memory", inline(route_after_memory), ["planner", "query_builder", "telemetry"]
    )
    graph.add_conditional_edges(
        "planner",
        inline(route_after_planner),
        ["followup_transform", "query_builder", "response_synth"],
    )
    # a follow-up made to stand alone may have been answered before
    graph.add_edge("followup_transform", "retrieve_memory")
    graph.add_edge("query_builder", "tool_executor")
    graph.add_edge("tool_executor", "retrieval_checker")
    graph.add_conditional_edges(
        "retrieval_checker",
        inline(route_after_retrieval_checker),
        ["query_builder", "response_synth"],
    )
    graph.add_edge("response_synth", "consolidate_memory")
    graph.add_edge("consolidate_memory", "telemetry")
    graph.add_edge("telemetry", END)
    return graph.compile()
