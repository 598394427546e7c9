"""A thread's live status while its turn runs (assistant.threads.setStatus).

Shown when the turn starts, with rotating loading messages in the asker's
language ("Searching…", "Checking sources…"), and cleared when the answer
starts streaming or is posted. Best effort: a failure never holds the turn up,
and a workspace that refuses the method (no agent features) is not asked again.
"""

from __future__ import annotations

import asyncio
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.features import STATUS, SlackFeatures
from textkit.catalog import say

# the turn's steps, as the loading messages Slack rotates through
LOADING_STEPS = ("received", "planner", "query_builder", "tool_executor", "retrieval_checker")
_CLEARING: set[asyncio.Task[bool]] = set()  # status clears under way (kept until done)


def loading_messages(language: str) -> list[str]:
    """The rotating status lines, in `language`."""
    return [say(f"progress:{step}", language) for step in LOADING_STEPS]


class SlackStatus:
    """One thread's status: shown once, cleared once."""

    def __init__(self, client: AsyncWebClient, features: SlackFeatures, route: dict[str, Any]):
        self._client = client
        self._features = features
        self._channel = str(route.get("channel") or "")
        self._thread = str(route.get("thread_ts") or "")
        self._shown = False

    async def show(self, language: str) -> None:
        """Set the status (where the thread is known and Slack takes it)."""
        if not (self._channel and self._thread) or not self._features.allows(STATUS):
            return
        if await self._set(say("slack:status", language), loading_messages(language)):
            self._shown = True

    async def clear(self) -> None:
        """Clear a status shown (the answer is showing now), without waiting for Slack:
        the answer's first words must not wait for it."""
        if self._shown:
            self._shown = False
            task = asyncio.create_task(self._set("", None))
            _CLEARING.add(task)
            task.add_done_callback(_CLEARING.discard)

    async def _set(self, status: str, loading: list[str] | None) -> bool:
        call = self._client.assistant_threads_setStatus(
            channel_id=self._channel,
            thread_ts=self._thread,
            status=status,
            loading_messages=loading,
        )
        return await self._features.attempt(STATUS, call)
