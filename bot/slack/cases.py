"""Hand-off cases in Slack: the staff channel's card and thread, and the asker's thread.

The core's `CaseRenderer` for Slack: outbox payloads only. A card is a post in
HANDOFF_SLACK_CHANNEL with the case's buttons; the thread under it carries the
conversation (`case_thread`: the sender finds the card's ts once it is
posted); an edit of the card names the case (`case_card`) the same way. The
asker's messages go to the thread their question was answered in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.messages import Button
from bot.slack.blocks import core_buttons_block, escape
from bot.slack.translate import split_key


def _blocks(text: str, buttons: Sequence[Button]) -> list[dict[str, Any]]:
    section = {"type": "section", "text": {"type": "mrkdwn", "text": text[:3000]}}
    actions = core_buttons_block(tuple(buttons))
    return [section, actions] if actions else [section]


class SlackCases:
    """Payloads for cases' messages in Slack."""

    def card(self, room: str, case_id: int, text: str, buttons: Sequence[Button]) -> dict[str, Any]:
        """A new card in the staff channel."""
        shown = escape(text)
        return {"op": "post", "channel": room, "text": shown, "blocks": _blocks(shown, buttons)}

    def card_edit(
        self, room: str, case_id: int, text: str, buttons: Sequence[Button]
    ) -> dict[str, Any]:
        """The card again, changed (claimed, closed, added to the knowledge base)."""
        shown = escape(text)
        payload = {"op": "update", "channel": room, "case_card": case_id, "text": shown}
        return {**payload, "blocks": _blocks(shown, buttons)}

    def in_thread(self, room: str, case_id: int, text: str) -> dict[str, Any]:
        """A message in the card's thread."""
        return {"op": "post", "channel": room, "case_thread": case_id, "text": escape(text)}

    def asker_route(self, conversation_key: str) -> dict[str, Any] | None:
        """The thread of a conversation (`channel:thread_ts`); None for one whose replies
        were private (`/ragbot ask`) or a command's: a message there would be seen by all."""
        channel, thread_ts = split_key(conversation_key)
        if not channel or not thread_ts or not thread_ts[0].isdigit():
            return None
        return {"channel": channel, "thread_ts": thread_ts}

    def to_asker(
        self, route: dict[str, Any], text: str, buttons: Sequence[Button]
    ) -> tuple[str, dict[str, Any]]:
        """A message in the thread the asker's question was answered in."""
        channel = str(route.get("channel") or "")
        shown = escape(text)
        payload: dict[str, Any] = {"op": "post", "channel": channel, "text": shown}
        payload["thread_ts"] = route.get("thread_ts") or None
        if buttons:
            payload["blocks"] = _blocks(shown, buttons)
        return channel, payload
