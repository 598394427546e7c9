"""What a hand-off case looks like: the staff room's card, its buttons, the asker's notices.

Platform-neutral text and core Buttons; the adapters escape and render them
(`bot.slack.cases`, `bot.telegram.cases`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from bot.core.handoff.office_hours import OfficeHours
from bot.core.messages import Button
from storage.origins import case_title
from textkit.catalog import say

ASK, CASE = "handoff", "case"  # Button actions: an asker's "Ask a person"; staff's case buttons
ANSWER_CHARS = 600  # of the bot's reply shown on a card (the staff see the rest in traces)
QUESTION_CHARS = 1000  # of the question: a card stays within Telegram's 4,096 characters
PASSAGE_CHARS = 160


class CaseRenderer(Protocol):
    """An adapter's way of showing cases (payloads for its outbox channel).

    Payloads for the staff room carry `case_post` ({"case", "card"}) so the
    message's id is remembered once sent (a staff reply to it finds its case),
    and messages in a case's thread carry `case_thread` (the case id): the
    adapter's sender places them under the card once the card is posted.
    """

    def card(self, room: str, case_id: int, text: str, buttons: Sequence[Button]) -> dict[str, Any]:
        """A new card in the staff room."""
        ...

    def card_edit(
        self, room: str, case_id: int, text: str, buttons: Sequence[Button]
    ) -> dict[str, Any]:
        """The case's card changed (claimed, closed)."""
        ...

    def in_thread(self, room: str, case_id: int, text: str) -> dict[str, Any]:
        """A message under the case's card (a relayed asker message, a reminder)."""
        ...

    def to_asker(
        self, route: dict[str, Any], text: str, buttons: Sequence[Button]
    ) -> tuple[str, dict[str, Any]]:
        """(chat, payload): a message in the asker's conversation."""
        ...


def ask_button(message_id: int, language: str) -> Button:
    """The "Ask a person" button under an answer."""
    return Button(ASK, str(message_id), say("handoff:button", language))


def back_button(case_id: int, language: str) -> Button:
    """The asker's "Back to the bot" button."""
    return Button(CASE, f"{case_id}:back", say("handoff:back_button", language))


def staff_buttons(case: dict[str, Any], collections: Sequence[str], lang: str) -> list[Button]:
    """Claim and Close while a case is open; "Add to knowledge base" per collection after."""
    case_id = case["id"]
    if case["status"] == "open":
        return [
            Button(CASE, f"{case_id}:claim", say("staff:claim", lang)),
            Button(CASE, f"{case_id}:close", say("staff:close", lang)),
        ]
    if case["status"] == "claimed":
        return [Button(CASE, f"{case_id}:close", say("staff:close", lang))]
    if case.get("kb_upload_id"):
        return []
    return [
        Button(CASE, f"{case_id}:kb-{c}", say("staff:add_to_kb", lang, collection=c))
        for c in collections
    ]


def who(actor: str | None, lang: str) -> str:
    """A staff member or the asker, as a card names them."""
    if not actor or actor == "asker":
        return say("staff:asker", lang)
    return actor


def card_text(case: dict[str, Any], lang: str, collections: Sequence[str] = ()) -> str:
    """The staff room's card of a case; a closed one says what "Add to knowledge base"
    adds where (the case's own document title, the `collections` it may go to)."""
    status = case["status"]
    if status == "claimed":
        shown = say("staff:claimed", lang, who=who(case.get("claimed_by"), lang))
    elif status == "closed":
        shown = say("staff:closed", lang, who=who(case.get("closed_by"), lang))
    else:
        shown = say("staff:open", lang)
    answer = _clip(" ".join(str(case.get("answer") or "").split()), ANSWER_CHARS)
    lines = [
        say(
            "staff:card",
            lang,
            case=case["id"],
            status=shown,
            platform=case["platform"],
            lang=say("language_name", case.get("language") or "en"),
            question=_clip(" ".join(str(case["question"]).split()), QUESTION_CHARS),
            outcome=case.get("outcome") or "?",
            answer=answer or "—",
        )
    ]
    passages = case.get("passages") or []
    if passages:
        lines.append(say("staff:passages", lang))
        for p in passages:
            page = f", p. {p['page']}" if p.get("page") else ""
            snippet = " ".join(str(p.get("text") or "").split())[:PASSAGE_CHARS]
            lines.append(f"• {p.get('document')}{page}" + (f" — {snippet}" if snippet else ""))
    if status != "closed":
        lines.append(say("staff:how", lang))
    elif collections and not case.get("kb_upload_id"):
        title = case_title(case["id"])
        lines.append(say("staff:kb_what", lang, title=title, collections=", ".join(collections)))
    return "\n".join(lines)


def opened_notice(hours: OfficeHours, remind_minutes: float, language: str) -> str:
    """What the asker is told when their case opens: a person replies here, and roughly when."""
    if hours.is_open(datetime.now(UTC)):
        return say("handoff:opened_now", language, minutes=f"{remind_minutes:g}")
    return say("handoff:opened_later", language, hours=hours.written)


def passages_of(context: dict[str, Any]) -> list[dict[str, Any]]:
    """The passages a turn looked at, as its stored trace names them (cited ones first)."""
    trace = context.get("trace") or {}
    looked = list(trace.get("looked_at") or [])
    cited = [
        {"document": c.get("document"), "page": c.get("page"), "text": ""}
        for c in context.get("citations") or []
    ]
    seen: set[tuple[Any, Any]] = set()
    out = []
    for p in cited + looked:
        key = (p.get("document"), p.get("page"))
        if key in seen:
            continue
        seen.add(key)
        out.append(p)
    return out[:5]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
