"""Which newer Bot API methods this bot may use, learned by trying once.

Reactions (👀 on a question in a group), per-language descriptions and the
stop button on drafts are used by default. When Telegram refuses one for good
(a Bot API server too old to know the method, a bot without the right), the
refusal is logged once as a warning and the feature is not tried again: the
bot does what it did before. A 429, a timeout or a network error is not a
refusal: the call is only skipped this time.
"""

from __future__ import annotations

import logging

from telegram.error import BadRequest, EndPointNotFound, Forbidden, InvalidToken

logger = logging.getLogger(__name__)

REACTIONS = "setMessageReaction"
DESCRIPTIONS = "setMyDescription"


class TelegramFeatures:
    """The features still worth trying, and one warning for each that was refused."""

    def __init__(self) -> None:
        self._refused: set[str] = set()

    def allows(self, feature: str) -> bool:
        """True until Telegram refused `feature` for good."""
        return feature not in self._refused

    def failed(self, feature: str, exc: Exception) -> None:
        """A call for `feature` failed: refused for good unless it was transient."""
        if isinstance(exc, BadRequest | EndPointNotFound | Forbidden | InvalidToken):
            if feature not in self._refused:
                self._refused.add(feature)
                logger.warning("telegram refused %s (%s): carrying on without it", feature, exc)
            return
        logger.info("telegram %s skipped this time: %s", feature, type(exc).__name__)
