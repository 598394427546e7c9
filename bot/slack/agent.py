"""Slack's agent messaging experience: the greeting in a new DM, and the context a user views.

`app_home_opened` on the Messages tab greets the user once, in their Slack
locale's language, with suggested questions: as Slack's suggested prompts
(assistant.threads.setSuggestedPrompts, refreshed at every visit) where the app
has them, else as buttons under the greeting. `app_context_changed` says which
channel the user is looking at; it is kept per user, so a question asked in the
DM reads that channel's collections (SLACK_CHANNEL_COLLECTIONS) as if asked there.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.serving import ServingCore
from bot.slack import translate
from bot.slack.audience import SlackAudiences
from bot.slack.blocks import escape
from bot.slack.features import PROMPTS, SlackFeatures
from bot.slack.question_blocks import suggestions_block
from textkit.catalog import say

logger = logging.getLogger(__name__)
CHANNEL_ENTITY = "slack#/types/channel_id"
# how long a viewed channel counts for the DM after Slack last said so: a user who
# left the channel stops reading its collections within this time
VIEWED_FOR_S = 3600.0

Enqueue = Callable[[str, str, dict[str, Any]], Awaitable[bool]]


def language_of(locale: str | None) -> str:
    """A Slack locale (`zh-TW`, `zh-CN`, `en-US`) as a reply language (else English)."""
    tag = (locale or "").lower().replace("_", "-")
    if tag.startswith("zh"):
        simplified = tag in ("zh", "zh-cn", "zh-sg") or tag.startswith("zh-hans")
        return "zh-hans" if simplified else "zh-hant"
    return "en"


def viewed_channel(context: Any) -> str | None:
    """The channel a context (`app_context` / `context`: entities, most relevant first)
    names first, if any."""
    entities = context.get("entities") if isinstance(context, dict) else None
    for entity in entities or ():
        if isinstance(entity, dict) and entity.get("type") == CHANNEL_ENTITY:
            value = entity.get("value")
            if isinstance(value, str) and value:
                return value
    return None


class AgentView:
    """The greeting and the viewed channel, for one Slack app."""

    def __init__(
        self,
        core: ServingCore,
        client: AsyncWebClient,
        audiences: SlackAudiences,
        features: SlackFeatures,
        enqueue: Enqueue,
    ) -> None:
        self._core = core
        self._client = client
        self._audiences = audiences
        self._features = features
        self._enqueue = enqueue
        self._unnamed = False  # an app_context_changed without a user was logged

    async def greet(self, event: dict[str, Any], team: str | None, event_id: str) -> None:
        """A user opened the DM: suggested prompts every time, the greeting the first time."""
        user, channel = str(event.get("user") or ""), str(event.get("channel") or "")
        if not user or not channel:
            return
        # once per event (Slack may deliver it again); opening a DM is not a message: it
        # does not count in the user's rate limit
        if not await self._core.first_delivery(translate.PLATFORM, f"home:{event_id}"):
            return
        facts = await self._audiences.user(user)
        language = language_of(facts.locale if facts else None)
        viewed = viewed_channel(event.get("context")) or await self.viewed(user)
        audience = await self._audiences.audience(user, translate.user_team(event) or team, viewed)
        questions = await self._core.suggested_questions(translate.PLATFORM, audience, language)
        prompted = await self._prompts(channel, questions, language)
        text = escape(say("slack:greeting", language))
        blocks: list[dict[str, Any]] = [
            {"type": "section", "text": {"type": "mrkdwn", "text": text}}
        ]
        if questions and not prompted:
            blocks.append(suggestions_block(questions))
        payload = {"op": "post", "channel": channel, "text": text, "blocks": blocks}
        # keyed by the user: greeted once, whichever worker and however often they come
        await self._enqueue(channel, f"slack:greeting:{user}", payload)

    async def _prompts(self, channel: str, questions: list[str], language: str) -> bool:
        """Slack's suggested prompts at the top of the DM; False where not available."""
        if not questions or not self._features.allows(PROMPTS):
            return False
        prompts = [{"title": q[:75], "message": q} for q in questions]
        # no thread_ts: in the agent experience it makes the call fail silently
        call = self._client.assistant_threads_setSuggestedPrompts(
            channel_id=channel, prompts=prompts, title=say("slack:suggested_title", language)
        )
        return await self._features.attempt(PROMPTS, call)

    async def context_changed(self, event: dict[str, Any]) -> None:
        """Keep the channel the user now views (nothing in view: none)."""
        user = event.get("user")
        if not isinstance(user, str) or not user:
            if not self._unnamed:  # Slack's example payload names no user: said once
                self._unnamed = True
                logger.warning("slack app_context_changed without a user: context not kept")
            return
        channel = viewed_channel(event.get("context")) or ""
        await self._core.remember(translate.PLATFORM, _context_key(user), channel)

    async def viewed(self, user: str) -> str | None:
        """The channel `user` was last seen viewing, if any."""
        key = _context_key(user)
        viewed = await self._core.recall(translate.PLATFORM, key, VIEWED_FOR_S)
        return viewed or None


def _context_key(user: str) -> str:
    return f"viewing:{user}"
