"""Which language a Telegram user is answered in: their /lang choice, else their client's."""

from __future__ import annotations

from telegram import User

from bot.core.serving import ServingCore
from bot.telegram import translate
from bot.telegram.translate import PLATFORM


async def chosen_language(core: ServingCore, user_id: int) -> str | None:
    """The language the user picked with /lang (None: never picked)."""
    return await core.recall(PLATFORM, translate.language_key(user_id))


async def reply_language(core: ServingCore, user: User | None) -> str:
    """The user's /lang choice, else what their Telegram client's language suggests."""
    chosen = await chosen_language(core, user.id) if user else None
    return chosen or core.pick_language("", user.language_code if user else None)
