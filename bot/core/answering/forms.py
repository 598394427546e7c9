"""The forms a reader may see: listed for a menu, and a form's file an answer offered.

What a reader may read is their audience's collections (`Audiences.collections`);
the list comes from the knowledge base, the file from the answering service.
"""

from __future__ import annotations

from typing import Any

from bot.core.admin.audit import Actor
from bot.core.admin.knowledge import Knowledge
from bot.core.audiences import Audiences
from bot.core.messages import Audience
from bot.turn.service import AnswerService


class ReaderForms:
    """Forms, as far as one reader on one platform may read them."""

    def __init__(self, audiences: Audiences, knowledge: Knowledge, answers: AnswerService) -> None:
        self._audiences = audiences
        self._knowledge = knowledge
        self._answers = answers

    async def listed(self, platform: str, audience: Audience | None = None) -> list[dict[str, Any]]:
        """The forms this user on `platform` may read (Slack without `audience`: a guest's)."""
        return await self._knowledge.list_forms(
            Actor(platform, "", False), self._audiences.collections(platform, audience)
        )

    async def file(self, platform: str, name: str, audience: Audience | None = None) -> Any:
        """The stored file of a form an answer offered, if this user may read it."""
        return await self._answers.export_form_file(
            name, self._audiences.collections(platform, audience)
        )
