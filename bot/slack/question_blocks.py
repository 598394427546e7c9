"""Slack blocks of questions a press asks: the greeting's suggested questions, and the
FAQ questions a refusal offers (each whole, beside an Ask button); a press is handled
by `bot.slack.buttons.SlackButtons.ask_suggested`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textkit.catalog import say

SUGGESTION = "ragbot_suggestion"  # a suggested question's button (value: the question)
RELATED_BLOCK = "ragbot_related"  # a refusal's FAQ question: `ragbot_related_<i>`


def suggestions_block(questions: Sequence[str]) -> dict[str, Any]:
    """Suggested questions as buttons (where Slack's suggested prompts are not available)."""
    elements = [
        {
            "type": "button",
            "text": {"type": "plain_text", "text": _label(q)},
            "action_id": f"{SUGGESTION}_{i}",
            "value": q[:2000],
        }
        for i, q in enumerate(questions[:5])
    ]
    return {"type": "actions", "block_id": SUGGESTION, "elements": elements}


def _label(question: str) -> str:
    """A button's text: Slack shows at most 75 characters."""
    return question if len(question) <= 75 else question[:74].rstrip() + "…"


def related_blocks(questions: Sequence[str], language: str) -> list[dict[str, Any]]:
    """A refusal's FAQ questions: an intro, then each question whole with an Ask button
    beside it (a press asks it: `ragbot_suggestion_<i>`, the question as its value)."""
    intro = {
        "type": "context",
        "elements": [{"type": "plain_text", "text": say("slack:related_intro", language)}],
    }
    label = {"type": "plain_text", "text": say("slack:ask_button", language)}
    asks = [
        {
            "type": "section",
            "block_id": f"{RELATED_BLOCK}_{i}",
            "text": {"type": "plain_text", "text": q},  # a question's `*` is no bold
            "accessory": {
                "type": "button",
                "text": label,
                "action_id": f"{SUGGESTION}_{i}",
                "value": q[:2000],
            },
        }
        for i, q in enumerate(questions[:5])
    ]
    return [intro, *asks]


def related_taken(blocks: list[dict[str, Any]], block_id: str) -> list[dict[str, Any]] | None:
    """`blocks` with the pressed question's Ask button gone and the question ticked;
    None when it is not there (or was ticked already)."""
    out, changed = [], False
    for block in blocks:
        if block.get("block_id") == block_id and block.get("accessory"):
            block = {k: v for k, v in block.items() if k != "accessory"}
            text = dict(block["text"])
            text["text"] = f"{text.get('text', '')} ✓"
            block["text"] = text
            changed = True
        out.append(block)
    return out if changed else None
