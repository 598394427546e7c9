"""A question's whole answer through the inbox, for callers that take no stream (the
OpenAI-compatible completion, the MCP `ask` tool): the body `POST /api/v1/ask` gives."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from bot.api.auth import draining
from bot.api.errors import ApiError
from bot.api.turns import RELAYED, answer_body, refusal, turn_failed, with_staff_body
from bot.api.waiting import StreamStopped, Waiting
from bot.core.messages import ErrorReply, FinalAnswer, InboundMessage, Outbound, Reply
from bot.core.serving import ServingCore


async def first_event(events: AsyncIterator[Outbound]) -> Outbound | None:
    """The first of a turn's events (None: there were none)."""
    async for event in events:
        return event
    return None


async def chained(first: Outbound | None, rest: AsyncIterator[Outbound]) -> AsyncIterator[Outbound]:
    """`first`, then the rest of the events."""
    if first is not None:
        yield first
    async for event in rest:
        yield event


async def whole_answer(
    waiting: Waiting, core: ServingCore, message: InboundMessage, conversation: str
) -> dict[str, Any]:
    """The answered turn's body (AskResponse's shape), or the ApiError a call gets instead
    (rate limited, draining, the turn failed)."""
    events = waiting.ask(message)
    last: Outbound | None = None
    try:
        async with contextlib.aclosing(events):
            first = await first_event(events)
            problem = refusal(first, core.closing)
            if problem is not None:
                raise problem
            async for event in chained(first, events):  # to the end: then it is answered
                last = event
    except StreamStopped:  # this worker shut down under the turn: ask another
        raise draining() from None
    if isinstance(last, FinalAnswer):
        return answer_body(last, conversation)
    if isinstance(last, Reply) and last.kind == RELAYED:
        return with_staff_body(last, conversation)
    if isinstance(last, ErrorReply):
        raise turn_failed(last)
    raise ApiError(500, "internal", "The turn ended without an answer.")
