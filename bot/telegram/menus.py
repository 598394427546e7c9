"""Telegram's command menus (setMyCommands) and the bot's descriptions, from the catalog.

Telegram keeps one menu per client language code: English for everyone, and
one `zh` menu for both Chinese scripts, so that menu shows the Traditional
description followed by the Simplified one when the two differ.
"""

from __future__ import annotations

from textkit.catalog import say

PUBLIC = ("start", "help", "lang", "forms", "new")
ADMIN = ("upload", "docs", "deldoc", "addform", "delform", "jobs", "stats", "gaps", "memory")
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
