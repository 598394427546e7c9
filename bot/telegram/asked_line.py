"""Who asked what, over Telegram's answer to a question a button asked: no one wrote it in
the chat, so the answer says it (bot.telegram.buttons puts the question, and in a group
the presser, in the route stored with the message)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from bot.core.offered_questions import restated
from bot.telegram.render import escape
from textkit.catalog import say


def asked_line(route: dict[str, Any], language: str) -> str:
    """Who asked what (HTML, in italics), over the answer to a question a button asked
    (route `asked`): "You asked" in a private chat; in a group (route `group`) the
    presser's name (`asker`) linked to their account (`asker_id`: a display name alone
    anyone could copy; the link mentions them). "" for any other message."""
    question = restated(_no_controls(str(route.get("asked") or "")))
    if not question:
        return ""
    if not route.get("group"):
        return f"<i>{escape(say('turn:you_asked', language, question=question))}</i>"
    person = route.get("asker_id")
    name = " ".join(_no_controls(str(route.get("asker") or "")).split()) or str(person or "?")
    asker = escape(name)
    if type(person) is int:
        asker = f'<a href="tg://user?id={person}">{asker}</a>'
    # both filled in one pass: nothing inserted is read again
    filled = {"\x00": asker, "\x01": escape(question)}
    line = escape(say("turn:asked_by", language, user="\x00", question="\x01"))
    return "<i>" + _PLACEHOLDER.sub(lambda m: filled[m.group()], line) + "</i>"


_PLACEHOLDER = re.compile("[\x00\x01]")


def _no_controls(text: str) -> str:
    """`text` with its control characters (never a joiner or an emoji's parts) as spaces."""
    return "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
