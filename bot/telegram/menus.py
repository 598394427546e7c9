"""Telegram's command menus (setMyCommands) and the bot's descriptions, from the catalog.

`set_menus` sets them at start: the citizens' commands for everyone, admin
commands in admins' chats, and the descriptions per language.

Telegram keeps one menu per client language code: English for everyone, and
one `zh` menu for both Chinese scripts, so that menu shows the Traditional
description followed by the Simplified one when the two differ.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from telegram import Bot, BotCommand, BotCommandScopeChat, BotCommandScopeDefault
from telegram.error import TelegramError

from bot.telegram.features import DESCRIPTIONS, TelegramFeatures
from textkit.catalog import say

logger = logging.getLogger(__name__)

PUBLIC = ("start", "help", "lang", "forms", "new")
ADMIN = (
    "upload",
    "docs",
    "deldoc",
    "addform",
    "delform",
    "jobs",
    "stats",
    "gaps",
    "memory",
    "sources",
)
MENU_LANGUAGES = ("en", "zh")  # Telegram language codes ("en" is the default menu)

Menu = dict[str, list[tuple[str, str]]]  # menu language → (command, description)


def describe(command: str, menu_language: str) -> str:
    """One command's description in the `en` or the `zh` menu."""
    key = f"telegram_menu:{command}"
    if menu_language == "en":
        return say(key, "en")
    hant, hans = say(key, "zh-hant"), say(key, "zh-hans")
    return hant if hant == hans else f"{hant} / {hans}"


def _menus(commands: tuple[str, ...]) -> Menu:
    return {lang: [(c, describe(c, lang)) for c in commands] for lang in MENU_LANGUAGES}


def public_commands() -> Menu:
    """The citizens' commands, for every chat."""
    return _menus(PUBLIC)


def admin_commands() -> Menu:
    """The admin commands, added to the public ones in admins' chats."""
    return _menus(ADMIN)


def descriptions() -> dict[str | None, tuple[str, str]]:
    """(description, short description) per Telegram language code (None: the default,
    English; `zh`: both Chinese scripts, as in the menus)."""
    out: dict[str | None, tuple[str, str]] = {}
    for code in MENU_LANGUAGES:
        texts = []
        for key, limit in (("telegram:description", 512), ("telegram:short_description", 120)):
            if code == "en":
                text = say(key, "en")
            else:
                hant, hans = say(key, "zh-hant"), say(key, "zh-hans")
                text = hant if hant == hans else f"{hant}\n\n{hans}"
                if len(text) > limit:  # both scripts do not fit: the Traditional one
                    text = hant
            texts.append(text[:limit])
        out[None if code == "en" else code] = (texts[0], texts[1])
    return out


async def set_menus(bot: Bot, admins: Iterable[str], features: TelegramFeatures) -> None:
    """The command menus (`admins`: the admins' user ids), then the descriptions."""
    await set_commands(bot, admins)
    await set_descriptions(bot, features)


async def set_commands(bot: Bot, admins: Iterable[str]) -> None:
    """The menus: citizens' commands for everyone, admin commands in admins' chats."""
    for language, commands in public_commands().items():
        code = None if language == "en" else language
        menu = [BotCommand(c, d) for c, d in commands]
        await bot.set_my_commands(menu, scope=BotCommandScopeDefault(), language_code=code)
    for admin in sorted(admins):
        if not admin.lstrip("-").isdigit():
            logger.warning("TELEGRAM_ADMIN_USER_IDS: %r is not a numeric user id", admin)
            continue
        for language, commands in admin_commands().items():
            code = None if language == "en" else language
            menu = [BotCommand(c, d) for c, d in public_commands()[language] + commands]
            try:
                await bot.set_my_commands(
                    menu, scope=BotCommandScopeChat(int(admin)), language_code=code
                )
            except TelegramError as exc:  # the admin never opened a chat with the bot
                logger.warning("admin menu for %s not set: %s", admin, exc)


async def set_descriptions(bot: Bot, features: TelegramFeatures) -> None:
    """The bot's description (empty chat) and short description (profile), per language."""
    for code, (description, short) in descriptions().items():
        if not features.allows(DESCRIPTIONS):
            return
        try:
            await bot.set_my_description(description, language_code=code)
            await bot.set_my_short_description(short, language_code=code)
        except TelegramError as exc:
            features.failed(DESCRIPTIONS, exc)
