"""Slack Block Kit: escaping, and the blocks of answers, sources, buttons and notes."""

from __future__ import annotations

import re
from typing import Any

from bot.core.messages import Button, FinalAnswer
from bot.core.offered_questions import Offered, offered
from bot.core.source_links import reader_link
from bot.core.splitting import split_text
from bot.slack.question_blocks import related_blocks
from textkit.catalog import say

SECTION_LIMIT = 3000  # characters of text in one section block (split_text's default)
MESSAGE_BLOCKS = 45  # of Slack's 50 per message, leaving room for sources and buttons
TEXT_LIMIT = 3900  # characters of a message's fallback (notification) text
FEEDBACK_BLOCK = "ragbot_feedback"
HANDOFF_BLOCK = "ragbot_handoff"  # "Ask a person" (kept when a vote replaces the feedback)
HELPFUL, NOT_HELPFUL = "ragbot_helpful", "ragbot_not_helpful"
FEEDBACK = "ragbot_feedback"  # Slack's feedback buttons (value "+id" / "-id")
STOP, STOP_BLOCK = "ragbot_stop", "ragbot_stop"  # value: the delivery whose turn to stop
SHARE, KEEP_PRIVATE, SHARE_BLOCK = "ragbot_share", "ragbot_keep_private", "ragbot_share"
# an answer's list item (graph.nodes.response_synth writes `- `): mrkdwn has no lists
_ITEM = re.compile(r"^-[ \t]+", re.MULTILINE)


def escape(text: str) -> str:
    """Slack's three control characters as entities: `<!channel>`, `<http://x|y>` stay inert."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mrkdwn(answer: str) -> str:
    """The answer as Slack mrkdwn: document text escaped, `[n]` citations kept, list items
    (`- `) as `• ` lines. Its other lines stay plain: answers mark no headings."""
    return _ITEM.sub("• ", escape(answer))


def sources_block(citations: list[dict[str, Any]], language: str) -> dict[str, Any] | None:
    """A context block listing the cited documents: title (a link to the document's own
    page, else to its source view when PUBLIC_BASE_URL makes one), page."""
    if not citations:
        return None
    lines = []
    for c in citations:
        title = escape(str(c.get("title") or c["document"]))
        link = reader_link(c)
        if link:
            title = f"<{escape(link)}|{title.replace('|', '¦')}>"
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


def feedback_block(message_id: int, language: str, native: bool = True) -> dict[str, Any]:
    """Helpful / not helpful for the stored answer: Slack's feedback buttons for AI answers
    (`native`; values `+id` / `-id`), else two plain buttons whose value is the id."""
    if native:
        return native_feedback_block(message_id, language)
    return classic_feedback_block(message_id, language)


def native_feedback_block(message_id: int, language: str) -> dict[str, Any]:
    """The context_actions block with Slack's feedback_buttons element."""
    good, bad = say("helpful", language), say("slack:not_helpful", language)
    element = {
        "type": "feedback_buttons",
        "action_id": FEEDBACK,
        "positive_button": _feedback_button(good, f"+{message_id}"),
        "negative_button": _feedback_button(bad, f"-{message_id}"),
    }
    return {"type": "context_actions", "block_id": FEEDBACK_BLOCK, "elements": [element]}


def _feedback_button(label: str, value: str) -> dict[str, Any]:
    text = {"type": "plain_text", "text": label[:75]}
    return {"text": text, "value": value, "accessibility_label": label[:75]}


def classic_feedback(blocks: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """`blocks` with Slack's feedback buttons turned into plain ones (same labels and
    answer), for a workspace that refused the block; None when there were none."""
    changed = False
    out = []
    for block in blocks:
        if block.get("type") == "context_actions" and block.get("block_id") == FEEDBACK_BLOCK:
            element = (block.get("elements") or [{}])[0]
            value = str((element.get("positive_button") or {}).get("value") or "")
            if value[1:].isdigit():
                good = element["positive_button"]["text"]["text"]
                bad = element["negative_button"]["text"]["text"]
                block = _classic(int(value[1:]), good, bad)
                changed = True
        out.append(block)
    return out if changed else None


def classic_feedback_block(message_id: int, language: str) -> dict[str, Any]:
    """Two plain buttons (for workspaces without the feedback buttons block)."""
    return _classic(message_id, say("helpful", language), say("slack:not_helpful", language))


def _classic(message_id: int, good: str, bad: str) -> dict[str, Any]:
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


def stop_block(delivery_id: str, language: str) -> dict[str, Any]:
    """The Stop button under an answer being written."""
    button = {
        "type": "button",
        "text": {"type": "plain_text", "text": say("turn:stop_button", language)},
        "action_id": STOP,
        "value": delivery_id,
    }
    return {"type": "actions", "block_id": STOP_BLOCK, "elements": [button]}


def share_block(message_id: int, language: str) -> dict[str, Any]:
    """ "Share in channel" / "Keep private" under a privately shown answer (`/ragbot ask`)."""
    share = {
        "type": "button",
        "text": {"type": "plain_text", "text": say("slack:share", language)},
        "action_id": SHARE,
        "value": str(message_id),
        "style": "primary",
    }
    keep = {
        "type": "button",
        "text": {"type": "plain_text", "text": say("slack:keep_private", language)},
        "action_id": KEEP_PRIVATE,
        "value": str(message_id),
    }
    return {"type": "actions", "block_id": SHARE_BLOCK, "elements": [share, keep]}


def answer_messages(
    answer: FinalAnswer, native_feedback: bool = True, ask_buttons: bool = True
) -> list[tuple[str, list[dict[str, Any]]]]:
    """(fallback text, blocks) of each message the answer needs: usually one.

    The answer's sections come first; the last message carries the sources,
    form buttons, a refusal's FAQ questions as buttons that ask them
    (`ask_buttons`: not on a privately shown answer, whose presses carry no
    thread to answer in; its text keeps the list) and feedback buttons.
    """
    # a refusal's FAQ questions: each beside its button, not listed again in the text
    shown = offered(answer) if ask_buttons else Offered(answer.text, ())
    pieces = split_text(mrkdwn(shown.text))
    sections: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": piece}} for piece in pieces
    ]
    extras = [
        b
        for b in (sources_block(answer.citations, answer.language), form_buttons(answer.forms))
        if b is not None
    ]
    related = related_blocks(shown.questions, answer.language) if shown.questions else []
    if answer.message_id is not None:
        extras.append(feedback_block(answer.message_id, answer.language, native_feedback))
        if answer.handoff:
            extras.append(handoff_block(answer.message_id, answer.language))
    messages: list[tuple[str, list[dict[str, Any]]]] = []
    for start in range(0, max(len(sections), 1), MESSAGE_BLOCKS):
        part = sections[start : start + MESSAGE_BLOCKS]
        text = "\n".join(pieces[start : start + MESSAGE_BLOCKS])
        messages.append((split_text(text, TEXT_LIMIT)[0] if text else " ", part))
    if related:  # under the text, before the sources; the notification lists them too
        text, blocks = messages[-1]
        intro = escape(say("slack:related_intro", answer.language))
        listed = "\n".join([text, "", intro, *(f"• {escape(q)}" for q in shown.questions)])
        messages[-1] = (split_text(listed, TEXT_LIMIT)[0], [*blocks, *related])
    messages[-1][1].extend(extras)
    return messages


def shared_answer(
    text: str, citations: list[dict[str, Any]], language: str, user_id: str
) -> tuple[str, list[dict[str, Any]]]:
    """A privately shown answer as posted in the channel: its text, its sources, and who
    shared it."""
    note = say("slack:shared_by", language, user=f"<@{user_id}>")
    return _answer_copy(text, citations, language, note)


def private_copy(
    text: str, citations: list[dict[str, Any]], language: str, note: str
) -> tuple[str, list[dict[str, Any]]]:
    """The private answer once its buttons were used: the answer, its sources, `note`."""
    return _answer_copy(text, citations, language, escape(note))


def _answer_copy(
    text: str, citations: list[dict[str, Any]], language: str, note: str
) -> tuple[str, list[dict[str, Any]]]:
    pieces = split_text(mrkdwn(text))[:MESSAGE_BLOCKS]
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": piece}} for piece in pieces
    ]
    sources = sources_block(citations, language)
    if sources is not None:
        blocks.append(sources)
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": note}]})
    return split_text("\n".join(pieces), TEXT_LIMIT)[0] or " ", blocks


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
