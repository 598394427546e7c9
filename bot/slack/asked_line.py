"""Who asked what, over Slack's answer to a question a button asked: no one wrote it in
the thread, so the answer (or a reply to it) says it (bot.slack.translate puts the
question in the route stored with the message)."""

from __future__ import annotations

from typing import Any

from bot.core.offered_questions import restated
from bot.core.splitting import split_text
from bot.slack.blocks import TEXT_LIMIT, escape
from textkit.catalog import say


def headed(
    message: tuple[str, list[dict[str, Any]]], asked: tuple[dict[str, Any], str] | None
) -> tuple[str, list[dict[str, Any]]]:
    """A message's (fallback text, blocks) headed by who asked what (`asked_line`; as it is
    without): one block more, which blocks.MESSAGE_BLOCKS leaves room for."""
    if asked is None:
        return message
    text, blocks = message
    head, said = asked
    return split_text(f"{said}\n{text}", TEXT_LIMIT)[0], [head, *blocks]


def asked_line(question: str, user: str, direct: bool, language: str) -> tuple[dict[str, Any], str]:
    """Who asked what over the answer to a question a button asked, as a context block
    and as notification text: "You asked" in a DM, else the presser mentioned (`user`, a
    Slack user id). The question is plain text, as its button showed it: its `*` or `_`
    format nothing."""
    question = restated(question)
    if direct:
        words = say("turn:you_asked", language, question="\x00")
    else:
        words = say("turn:asked_by", language, user=f"<@{user}>", question="\x00")
    before, _, after = words.partition("\x00")
    elements = [
        {"type": "mrkdwn", "text": before.strip() or " "},
        {"type": "plain_text", "text": f"{question}{after}", "emoji": False},
    ]
    return {"type": "context", "elements": elements}, f"{before}{escape(question)}{after}"
