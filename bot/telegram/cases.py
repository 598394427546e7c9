"""Hand-off cases in Telegram: the staff group's card and reply chain, and the asker's chat.

The core's `CaseRenderer` for Telegram: outbox payloads only. A card is a
message in HANDOFF_TELEGRAM_CHAT_ID with the case's buttons; staff answer by
replying to it (or to any message the bot posted for the case). Messages
for the case are sent as replies to the card (`case_thread`) and the card is
edited in place (`case_card`): the delivery finds the card's message id once it
is posted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.messages import Button
from bot.telegram.delivery import edit_payload, send_payload
from bot.telegram.render import core_keyboard, escape
from bot.telegram.translate import chat_of


class TelegramCases:
    """Payloads for cases' messages in Telegram."""

    def card(self, room: str, case_id: int, text: str, buttons: Sequence[Button]) -> dict[str, Any]:
        """A new card in the staff group."""
        return send_payload(int(room), escape(text), core_keyboard(buttons))

    def card_edit(
        self, room: str, case_id: int, text: str, buttons: Sequence[Button]
    ) -> dict[str, Any]:
        """The card again, changed (its message id found when sent)."""
        payload = edit_payload(int(room), 0, escape(text), core_keyboard(buttons))
        return {**payload, "case_card": case_id}

    def in_thread(self, room: str, case_id: int, text: str) -> dict[str, Any]:
        """A reply to the card."""
        return {**send_payload(int(room), escape(text)), "case_thread": case_id}

    def asker_route(self, conversation_key: str) -> dict[str, Any] | None:
        """The chat a conversation key starts with (in a group, the conversation goes on
        from the message); None when the key names no chat."""
        chat = chat_of(conversation_key)
        if chat is None:
            return None
        return {"chat_id": chat, "group": chat < 0, "conversation": conversation_key}

    def to_asker(
        self, route: dict[str, Any], text: str, buttons: Sequence[Button]
    ) -> tuple[str, dict[str, Any]]:
        """A message in the asker's chat (in a group, a reply to their question)."""
        chat = int(route["chat_id"])
        group = bool(route.get("group"))
        payload = send_payload(
            chat,
            escape(text),
            core_keyboard(buttons),
            reply_to=route.get("reply_to") or None,
            # in a group, a reply to this message continues the asker's conversation
            remember=route.get("conversation") if group else None,
        )
        return str(chat), payload
