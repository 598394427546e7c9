"""The questions a new chat suggests: configured per language, else the most asked ones.

SUGGESTED_QUESTIONS_EN / _ZH_HANT / _ZH_HANS win when set. Otherwise the answer
memory's questions asked most often in the reader's language, among those
whose sources the reader may read (a remembered question is already masked,
and only one asked again by someone is suggested). A database that is down
suggests nothing: a greeting never fails for want of suggestions.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.settings import Settings
from storage.memory import AnswerMemory

logger = logging.getLogger(__name__)
SUGGESTIONS = 3  # Slack shows up to four suggested prompts; three leave room to read


class Suggestions:
    """Picks a reader's suggested questions."""

    def __init__(self, settings: Settings, memory: AnswerMemory | None) -> None:
        self._settings = settings
        self._memory = memory

    async def for_reader(self, language: str, collections: Sequence[str] | None) -> list[str]:
        """Up to SUGGESTIONS questions in `language` for a reader of `collections`."""
        configured = self._settings.suggested_questions(language)
        if configured:
            return list(configured[:SUGGESTIONS])
        if self._memory is None:
            return []
        try:
            found = await self._memory.most_asked(language, collections, SUGGESTIONS)
        except Exception:  # the greeting still goes out, without suggestions
            logger.warning("suggested questions unavailable", exc_info=True)
            return []
        return [" ".join(q.split())[:150] for q in found]
