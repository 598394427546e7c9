"""Outbound → Slack: escaping, the answer's blocks, and splitting within Slack's limits."""

from __future__ import annotations

from typing import Any

from bot.core.messages import Button, FinalAnswer
from bot.core.splitting import split_text
from textkit.catalog import say

SECTION_LIMIT = 3000  # characters of text in one section block (split_text's default)
MESSAGE_BLOCKS = 45  # of Slack's 50 per message, leaving room for sources and buttons
FEEDBACK_BLOCK = "ragbot_feedback"
HANDOFF_BLOCK = "ragbot_handoff"  # "Ask a person" (kept when a vote replaces the feedback)
HELPFUL, NOT_HELPFUL = "ragbot_helpful", "ragbot_not_helpful"


def escape(text: str) -> str:
    """Slack's three control characters as entities: `<!channel>`, `<http://x|y>` stay inert."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mrkdwn(answer: str) -> str:
    """The answer as Slack mrkdwn: document text escaped, `[n]` citations kept."""
    return escape(answer)


def sources_block(citations: list[dict[str, Any]], language: str) -> dict[str, Any] | None:
    """A context block listing the cited documents: title, page, link."""
    if not citations:
        return None
    lines = []
    for c in citations:
        title = escape(str(c["document"]))
        if c.get("url"):
            title = f"<{escape(c['url'])}|{title.replace('|', '¦')}>"
        # the page label stays English in every language, as Slack has always shown it
        page = f", {say('page', 'en', page=c['page'])}" if c.get("page") else ""
        lines.append(f"[{c['n']}] {title}{page}")
    heading = say("heading", language, label=say("sources", language))
    text = f"*{escape(heading)}*\n" + "\n".join(lines)
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": split_text(text)[0]}]}


def form_buttons(forms: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Forms with a link, as link buttons."""
    buttons = [
        {
            "type": "button",
            "text": {"type": "plain_text", "text": str(f["name"])[:75]},
            "url": f["url"],
            "action_id": f"ragbot_form_{i}",
        }
        for i, f in enumerate(forms)
        if f.get("url")
    ][:5]
    return {"type": "actions", "elements": buttons} if buttons else None


def feedback_block(message_id: int, language: str) -> dict[str, Any]:
    """Helpful / not helpful buttons whose value is the stored answer's id."""
    good, bad = say("helpful", language), say("slack:not_helpful", language)
    return {
        "type": "actions",
        "block_id": FEEDBACK_BLOCK,
        "elements": [
            {
                "type": "button",
                "text": {"type": "plain_text", "text": good},
                "action_id": HELPFUL,
                "value": str(message_id),
            },
            {
                "type": "button",
                "text": {"type": "plain_text", "text": bad},
                "action_id": NOT_HELPFUL,
                "value": str(message_id),
            },
        ],
    }


def handoff_block(message_id: int, language: str) -> dict[str, Any]:
    """The "Ask a person" button under an answer: its value is the stored answer's id."""
    button = {
        "type": "button",
        "text": {"type": "plain_text", "text": say("handoff:button", language)},
        "action_id": "ragbot_handoff_ask",
        "value": str(message_id),
    }
    return {"type": "actions", "block_id": HANDOFF_BLOCK, "elements": [button]}


def answer_messages(answer: FinalAnswer) -> list[tuple[str, list[dict[str, Any]]]]:
    """(fallback text, blocks) of each message the answer needs: usually one.

    The answer's sections come first; the last message carries the sources,
    form buttons and feedback buttons.
    """
    pieces = split_text(mrkdwn(answer.text))
    sections: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": piece}} for piece in pieces
    ]
    extras = [
        b
        for b in (sources_block(answer.citations, answer.language), form_buttons(answer.forms))
        if b is not None
    ]
    if answer.message_id is not None:
        extras.append(feedback_block(answer.message_id, answer.language))
        if answer.handoff:
            extras.append(handoff_block(answer.message_id, answer.language))
    messages: list[tuple[str, list[dict[str, Any]]]] = []
    for start in range(0, max(len(sections), 1), MESSAGE_BLOCKS):
        part = sections[start : start + MESSAGE_BLOCKS]
        text = "\n".join(pieces[start : start + MESSAGE_BLOCKS])
        messages.append((split_text(text, 3900)[0] if text else " ", part))
    messages[-1][1].extend(extras)
    return messages


def feedback_taken(
    blocks: list[dict[str, Any]], user_id: str, helpful: bool
) -> list[dict[str, Any]]:
    """The message's blocks with the buttons replaced by a note that the vote was taken."""
    emoji = "👍" if helpful else "👎"
    note = say("slack:feedback_taken", "en", emoji=emoji, user=f"<@{user_id}>")
    replaced = {
        "type": "context",
        "block_id": FEEDBACK_BLOCK,
        "elements": [{"type": "mrkdwn", "text": note}],
    }
    return [replaced if b.get("block_id") == FEEDBACK_BLOCK else b for b in blocks]


def core_buttons_block(buttons: tuple[Button, ...] | list[Button]) -> dict[str, Any] | None:
    """The core's buttons (upload offers, held uploads) as an actions block.

    The action id names what the button does (`ragbot_upload_public`); the value
    carries the offer or upload it is about, checked by the core when pressed.
    """
    elements = [
        {
            "type": "button",
            "text": {"type": "plain_text", "text": b.label[:75]},
            "action_id": f"ragbot_{b.action}_{b.value.rsplit(':', 1)[-1]}",
            "value": b.value,
        }
        for b in buttons
    ]
    return {"type": "actions", "elements": elements} if elements else None
