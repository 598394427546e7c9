"""The questions a new chat suggests: configured per language, else the most asked ones.

SUGGESTED_QUESTIONS_EN / _ZH_HANT / _ZH_HANS win when set. Otherwise the answer
memory's questions most people asked in the reader's language, on the reader's
platform, among those whose sources the reader may read. A remembered question
is masked, and only one at least MIN_ASKERS different people asked is
suggested: one person repeating a question (to plant it in every greeting)
never makes it a suggestion. A database that is down suggests nothing: a
greeting never fails for want of suggestions.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from bot.core.audiences import Audiences
from bot.core.messages import Audience
from bot.settings import Settings
from storage.memory import AnswerMemory

logger = logging.getLogger(__name__)
SUGGESTIONS = 3  # Slack shows up to four suggested prompts; three leave room to read
MIN_ASKERS = 3  # different people (pseudonyms) who asked a remembered question
CACHE_S = 300.0  # how long the memory's suggestions are reused


class Suggestions:
    """Picks a reader's suggested questions."""

    def __init__(
        self, settings: Settings, memory: AnswerMemory | None, audiences: Audiences
    ) -> None:
        self._settings = settings
        self._memory = memory
        self._audiences = audiences
        # (platform, language, collections) → (when, questions): a greeting at every DM
        # visit must not scan the memory every time
        self._cache: dict[tuple[str, str, tuple[str, ...] | None], tuple[float, list[str]]] = {}

    async def for_audience(
        self, platform: str, audience: Audience | None, language: str
    ) -> list[str]:
        """The questions a greeting suggests to this reader on `platform`, in `language`."""
        return await self.for_reader(
            language, self._audiences.collections(platform, audience), platform
        )

    async def for_reader(
        self, language: str, collections: Sequence[str] | None, platform: str
    ) -> list[str]:
        """Up to SUGGESTIONS questions in `language` for a reader of `collections` on
        `platform`."""
        configured = self._settings.suggested_questions(language)
        if configured:
            return list(configured[:SUGGESTIONS])
        if self._memory is None:
            return []
        key = (platform, language, tuple(collections) if collections is not None else None)
        now = time.monotonic()
        cached = self._cache.get(key)
        if cached is not None and now - cached[0] < CACHE_S:
            return list(cached[1])
        try:
            found = await self._memory.most_asked(
                language, collections, platform, MIN_ASKERS, SUGGESTIONS
            )
        except Exception:  # the greeting still goes out, without suggestions
            logger.warning("suggested questions unavailable", exc_info=True)
            return []
        questions = [" ".join(q.split())[:150] for q in found]
        if len(self._cache) > 1000:  # a few audiences in practice: start over if not
            self._cache.clear()
        self._cache[key] = (now, questions)
        return questions
