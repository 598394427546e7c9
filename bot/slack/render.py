"""How the core's outbound things are shown in Slack: the renderer the core calls.

A delivery's events go to a `SlackResponder` made for it (the preview in its
thread, the final messages via the outbox); an upload's outcome becomes a
message in the upload's thread, with the held upload's buttons. The blocks
themselves are built in `bot.slack.blocks`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.messages import Outbound, UploadOutcome
from bot.core.platform import Delivery
from bot.settings import Settings
from bot.slack import translate
from bot.slack.blocks import core_buttons_block, escape
from bot.slack.features import SlackFeatures
from bot.slack.responder import Enqueue, SlackResponder


class SlackRenderer:
    """Shows deliveries (`render`) and upload outcomes (`notify`) in Slack."""

    def __init__(
        self,
        client: AsyncWebClient,
        enqueue: Enqueue,
        settings: Settings,
        features: SlackFeatures,
    ) -> None:
        self._client = client
        self._enqueue = enqueue
        self._streaming = settings.slack_streaming
        self._interval_s = settings.slack_update_interval_s
        self._features = features

    async def render(self, delivery: Delivery, events: AsyncIterator[Outbound]) -> None:
        """Show one delivery's events (the core's renderer for Slack)."""
        responder = SlackResponder(
            self._client,
            delivery,
            self._enqueue,
            streaming=self._streaming,
            interval_s=self._interval_s,
            features=self._features,
        )
        async for event in events:
            await responder.render(event)

    async def notify(self, outcome: UploadOutcome) -> None:
        """Tell the admin, in the upload's thread, what the ingestion job did (via the outbox)."""
        channel, thread_ts = translate.split_key(outcome.conversation_key or "")
        if channel:
            text = escape(outcome.text)
            buttons = core_buttons_block(outcome.buttons)  # a held upload: publish / cancel
            blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]
            payload: dict[str, Any] = {"op": "post", "channel": channel}
            payload |= {"thread_ts": thread_ts or None}
            payload |= {"text": text, "blocks": [*blocks, buttons] if buttons else None}
            key = f"slack:{outcome.about}:{outcome.status}"
            await self._enqueue(channel, key, payload, None)
