"""Hand-off cases for web askers: what the staff say lands in the conversation's mailbox.

The core's `CaseRenderer` for the HTTP API. The API has no staff room (staff
work in Slack or Telegram), so only `to_asker` is ever used: the payload is
what `GET /api/v1/conversations/{id}/messages` hands the page. Buttons become
`back`: the page shows its own "Back to the bot" (POST /api/v1/handoff/close),
scoped to the conversation, never a case id a visitor could guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.messages import Button


class ApiCases:
    """Payloads for a web asker's mailbox."""

    def card(self, room: str, case_id: int, text: str, buttons: Sequence[Button]) -> dict[str, Any]:
        """Never: the API is no staff room."""
        raise NotImplementedError("the HTTP API has no staff room")

    def card_edit(
        self, room: str, case_id: int, text: str, buttons: Sequence[Button]
    ) -> dict[str, Any]:
        """Never: the API is no staff room."""
        raise NotImplementedError("the HTTP API has no staff room")

    def in_thread(self, room: str, case_id: int, text: str) -> dict[str, Any]:
        """Never: the API is no staff room."""
        raise NotImplementedError("the HTTP API has no staff room")

    def asker_route(self, conversation_key: str) -> dict[str, Any] | None:
        """The conversation's mailbox (the web chat shows what it holds with its history)."""
        return {"conversation": conversation_key} if conversation_key else None

    def to_asker(
        self, route: dict[str, Any], text: str, buttons: Sequence[Button]
    ) -> tuple[str, dict[str, Any]]:
        """A message in the asker's conversation (its key is the mailbox)."""
        return str(route["conversation"]), {"text": text, "back": bool(buttons)}
