"""Every platform's case renderer: the cards and relays of a hand-off case, and how a
platform reaches an asker in their conversation (a correction, a new answer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.settings import API_PLATFORM

if TYPE_CHECKING:
    from bot.core.answering.new_answers import AskerRenderer
    from bot.core.serving import ServingCore


def register_cases(core: ServingCore) -> None:
    """Every platform's case renderer, whatever adapters this process runs.

    They only build outbox payloads, and a worker with the other adapter sends them,
    so a case asked on one platform always gets its cards and relays on the others.
    """
    # here, not at the top: the command line's other commands need no chat library
    from bot.api.cases import ApiCases
    from bot.slack.cases import SlackCases
    from bot.telegram.cases import TelegramCases

    core.register_cases("slack", SlackCases())
    core.register_cases("telegram", TelegramCases())
    core.register_cases(API_PLATFORM, ApiCases())


def asker_renderers() -> dict[str, AskerRenderer]:
    """How each platform reaches an asker in their conversation (a correction, a new
    answer): its case renderer, which builds the outbox payloads hand-off notices use."""
    # here, not at the top: the command line's other commands need no chat library
    from bot.api.cases import ApiCases
    from bot.slack.cases import SlackCases
    from bot.telegram.cases import TelegramCases

    return {"slack": SlackCases(), "telegram": TelegramCases(), API_PLATFORM: ApiCases()}
