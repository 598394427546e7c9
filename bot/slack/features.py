"""Which of Slack's newer AI-app features this workspace accepts, learned by trying once.

The agent features (live status, suggested prompts, the feedback buttons
block, a Stop button on a stream) are used by default. When Slack refuses one
for good (an app without agent_view or `assistant:write`, an older workspace,
a block type it does not know), the refusal is logged once as a warning and
the feature is not tried again by this worker: the adapter does what it did
before the feature existed. A rate limit, a 5xx or a network error is not a
refusal: the call is only skipped this time.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.slack import api_errors

logger = logging.getLogger(__name__)
# Slack's words for "this app or workspace cannot use that method": a refusal for good
REFUSALS = frozenset(
    {
        "unknown_method",
        "method_deprecated",
        "missing_scope",
        "not_allowed_token_type",
        "no_permission",
        "not_allowed",
        "feature_not_enabled",
    }
)
# a block or chunk type Slack does not know (the feature's own block, when it alone changed)
UNKNOWN_CONTENT = frozenset({"invalid_blocks", "invalid_chunks", "invalid_arguments"})
# Slack's own words for "not now": retried like a 5xx, never a refusal
TRANSIENT = frozenset(
    {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}
)

STATUS = "assistant.threads.setStatus"
PROMPTS = "assistant.threads.setSuggestedPrompts"
FEEDBACK_BUTTONS = "feedback buttons block"
STREAM_BUTTONS = "buttons in a stream"


class SlackFeatures:
    """The features still worth trying, and one warning for each that was refused."""

    def __init__(self) -> None:
        self._refused: set[str] = set()

    def allows(self, feature: str) -> bool:
        """True until Slack refused `feature` for good."""
        return feature not in self._refused

    def refuse(self, feature: str, reason: str) -> None:
        """Stop using `feature`, saying so once."""
        if feature in self._refused:
            return
        self._refused.add(feature)
        logger.warning(
            "slack refused the %s (%s): carrying on without it (see bot/slack/manifest.yaml)",
            feature,
            reason,
        )

    def failed(self, feature: str, exc: Exception, also: frozenset[str] = frozenset()) -> None:
        """A call for `feature` failed: refused for good when Slack said the app or the
        workspace cannot use it (REFUSALS, plus `also` for this feature); anything else
        (a deleted thread, a rate limit, a 5xx) only skips this call."""
        error = api_errors.error(exc)
        if error and (error in REFUSALS or error in also):
            self.refuse(feature, error)
            return
        logger.info("slack %s skipped this time: %s", feature, api_errors.describe(exc))

    async def attempt(self, feature: str, call: Awaitable[object]) -> bool:
        """Await a call for `feature`: True when it went through; a failure is `failed`
        (a refusal, or skipped this time) and a network error is skipped: False."""
        try:
            await call
            return True
        except SlackApiError as exc:
            self.failed(feature, exc)
        except (aiohttp.ClientError, TimeoutError) as exc:
            logger.info("slack %s skipped this time: %s", feature, type(exc).__name__)
        return False
