"""How the core's outbound things look on Telegram: HTML text, the answer's messages, keyboards.

Everything that came from documents or users is escaped for HTML parse mode
(`<`, `>`, `&`); `*` and `_` mean nothing in HTML mode, so they need nothing.
An answer's list items (`- ` lines) show as `• ` lines: Telegram's HTML has no
list tags. Long answers are cut on line and sentence boundaries (never inside a
list item that fits a message) into messages under Telegram's 4,096
characters; citations follow the answer with document title and page.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Sequence
from typing import Any

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    KeyboardButton,
    Message,
    ReplyKeyboardMarkup,
)

from bot.core.messages import Button, ErrorReply, FinalAnswer, Reply
from bot.core.offered_questions import offered
from bot.core.source_links import reader_link
from bot.core.splitting import split_text
from textkit.catalog import LANGUAGES, say

MESSAGE_LIMIT = 4096  # characters of a message after entity parsing
PIECE_LIMIT = 4000  # plain characters per piece: room for the markup around it
STREAM_LIMIT = 3500  # a streamed preview stops growing here; the final message has it all
VOTE, LANG, FORM, STOP = "fb", "lang", "form", "stop"
RELATED = "rq"  # a refusal's FAQ question (`rq:<place>`)
RELATED_MAX = 5  # offered questions shown at most (RELATED_QUESTIONS allows 5)
TAKEN_MARK = " ✓"  # on an offered question's button once asked
EXPAND_FROM = 1200  # an answer longer than this shows its lead, the rest expandable
LEAD_LIMIT = 500  # the lead of an expandable answer: whole sentences up to this long
_TAG = re.compile(r"<[^>]+>")
# an answer's list item (graph.nodes.response_synth writes `- `)
_ITEM = re.compile(r"^-[ \t]+", re.MULTILINE)


def escape(value: str) -> str:
    """Text for HTML parse mode: `<`, `>`, `&` as entities (quotes too, for attributes)."""
    return html.escape(value, quote=True)


def bulleted(plain: str) -> str:
    """`plain` with its list items' `- ` shown as `• ` (still plain text)."""
    return _ITEM.sub("• ", plain)


def preview(streamed: str) -> str:
    """The answer so far, for a draft or an edited message."""
    shown = streamed.strip()
    if len(shown) > STREAM_LIMIT:
        shown = shown[:STREAM_LIMIT].rstrip()
    return escape(bulleted(shown)) + " …"


def sources(citations: list[dict[str, Any]], language: str) -> str:
    """The cited documents as an HTML list: [n] title (a link to the document's own page,
    else to its source view when PUBLIC_BASE_URL makes one), page."""
    if not citations:
        return ""
    lines = [f"<b>{escape(say('sources', language))}</b>"]
    for c in citations:
        title = escape(str(c.get("title") or c.get("document") or ""))
        link = reader_link(c)
        if link:
            title = f'<a href="{escape(link)}">{title}</a>'
        page = f", {escape(say('page', language, page=c['page']))}" if c.get("page") else ""
        lines.append(f"[{c.get('n')}] {title}{page}")
    return "\n".join(lines)


def answer_messages(answer: FinalAnswer, asked: str = "") -> list[str]:
    """The answer as HTML messages: pieces of the text, then the sources with the last one.

    `asked` (HTML), for a question a button asked, heads the first message: who
    asked what, as no one wrote it in the chat. A refusal's FAQ questions follow
    its text numbered (never folded into an expandable quote), each number a
    button of the answer's keyboard (`answer_keyboard`) that asks it.
    """
    shown = offered(answer)
    footer = sources(answer.citations, answer.language)
    if shown.questions:
        intro = say("telegram:related_numbers", answer.language)
        listed = [f"{n}. {q}" for n, q in enumerate(shown.questions[:RELATED_MAX], 1)]
        footer = "\n\n".join(p for p in (escape("\n".join([intro, *listed])), footer) if p)
    # the asked line's room kept in the first piece: it heads it
    room = plain_length(asked) + 2 if asked else 0
    pieces = html_messages(shown.text, footer, expand=True, reserve=room)
    # (only a footer joined to a full first piece leaves no room: then it goes before)
    return headed(pieces, asked)


def headed(pieces: list[str], line: str) -> list[str]:
    """HTML `pieces` with `line` heading the first, or before it when it would not fit a
    message; as they are without a line."""
    if not line:
        return pieces
    first = f"{line}\n\n{pieces[0]}"
    fits = plain_length(first) <= MESSAGE_LIMIT
    return [first, *pieces[1:]] if fits else [line, *pieces]


def plain_length(html_text: str) -> int:
    """The characters Telegram counts in `html_text`: tags left out, an entity one."""
    return len(html.unescape(_TAG.sub("", html_text)))


def html_messages(
    plain: str, footer_html: str = "", expand: bool = False, reserve: int = 0
) -> list[str]:
    """`plain` bulleted, escaped and cut into messages; `footer_html` joins the last one
    when it fits. `reserve` characters are kept free in the first (a line to head it).

    With `expand` (answers), a long text that fits one message shows its lead
    (whole sentences) and the rest in an expandable blockquote; a longer one is
    cut at sentence boundaries. Text is cut before it is escaped, so no entity
    or tag is ever split.
    """
    parts = split_text(bulleted(plain or "…"), PIECE_LIMIT - reserve)
    one = expand and len(parts) == 1
    pieces = [expandable(parts[0])] if one else [escape(p) for p in parts]
    if footer_html:
        footer_plain = plain_length(footer_html)
        last_plain = len(html.unescape(pieces[-1])) + (reserve if len(pieces) == 1 else 0)
        if last_plain + footer_plain + 2 <= MESSAGE_LIMIT:
            pieces[-1] = f"{pieces[-1]}\n\n{footer_html}"
        else:
            pieces.append(footer_html)
    return pieces


def expandable(plain: str) -> str:
    """`plain` as HTML: as it is when short, else its lead then an expandable blockquote."""
    text = plain.strip()
    if len(text) <= EXPAND_FROM:
        return escape(text)
    lead = split_text(text, LEAD_LIMIT)[0]
    rest = text[len(lead) :].strip() if text.startswith(lead) else ""
    if not rest:
        return escape(text)
    return f"{escape(lead)}\n<blockquote expandable>{escape(rest)}</blockquote>"


def stop_keyboard(delivery_id: str, language: str) -> InlineKeyboardMarkup | None:
    """The Stop button under an answer being written (None when its data would not fit)."""
    data = f"{STOP}:{delivery_id}"
    if len(data.encode()) > 64:
        return None
    label = say("turn:stop_button", language)
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data)]])


def suggestions_keyboard(questions: list[str]) -> ReplyKeyboardMarkup | None:
    """Suggested questions as keyboard buttons: a press sends the question as the user."""
    rows = [[KeyboardButton(q[:200])] for q in questions]
    if not rows:
        return None
    return ReplyKeyboardMarkup(rows, resize_keyboard=True, one_time_keyboard=True)


def form_key(name: str) -> str:
    """A short stable key for a form's name (callback data holds at most 64 bytes)."""
    return hashlib.sha1(name.encode()).hexdigest()[:16]


def form_rows(forms: list[dict[str, Any]]) -> list[list[InlineKeyboardButton]]:
    """A form with a link: a link button; a form with only a file: a button that sends it."""
    rows = []
    for form in forms:
        name = str(form.get("name") or "")[:64]
        if form.get("url"):
            rows.append([InlineKeyboardButton(name, url=str(form["url"]))])
        elif form.get("has_file") or form.get("file"):
            rows.append(
                [InlineKeyboardButton(f"📄 {name}", callback_data=f"{FORM}:{form_key(name)}")]
            )
    return rows


def answer_keyboard(answer: FinalAnswer) -> InlineKeyboardMarkup | None:
    """Form buttons, a refusal's FAQ questions (a press asks one), then the helpful /
    not-helpful buttons of a stored answer, then "Ask a person" when people can take
    over."""
    rows = form_rows(answer.forms) + related_rows(offered(answer).questions)
    if answer.message_id is not None:
        rows.append(vote_row(answer.message_id, answer.language))
        if answer.handoff:  # its own row: a vote's tick leaves it in place
            label = say("handoff:button", answer.language)
            data = f"cb:handoff:{answer.message_id}"
            rows.append([InlineKeyboardButton(f"🙋 {label}", callback_data=data)])
    return InlineKeyboardMarkup(rows) if rows else None


def related_rows(questions: Sequence[str]) -> list[list[InlineKeyboardButton]]:
    """One row of numbered buttons, one per offered question (listed with its number at
    the end of the message's text, which holds the question); the data names the place."""
    row = [
        InlineKeyboardButton(str(n), callback_data=f"{RELATED}:{n - 1}")
        for n in range(1, min(len(questions), RELATED_MAX) + 1)
    ]
    return [row] if row else []


def asked_question(message: Message, data: str) -> str | None:
    """The question the related-question button with `data` asks, read from Telegram's
    copy of `message` (its numbered line in the text); None when the message carries
    no such button. A tick does not matter: in a group, others may ask it too."""
    buttons = _buttons(message.reply_markup)
    pressed = next((b for b in buttons if b.callback_data == data), None)
    place = data.partition(":")[2]
    if pressed is None or not place.isdigit():
        return None
    number = f"{int(place) + 1}. "
    for line in reversed((message.text or "").splitlines()):
        if line.startswith(number):
            return line.removeprefix(number).strip() or None
    return None


def _buttons(markup: InlineKeyboardMarkup | None) -> list[InlineKeyboardButton]:
    return [b for row in (markup.inline_keyboard if markup else ()) for b in row]


def related_asked(markup: InlineKeyboardMarkup | None, data: str) -> bool:
    """The related-question button with `data` is ticked: its question was asked."""
    buttons = _buttons(markup)
    return any(b.callback_data == data and b.text.endswith(TAKEN_MARK) for b in buttons)


def related_taken(markup: InlineKeyboardMarkup | None, data: str) -> InlineKeyboardMarkup | None:
    """`markup` with the pressed question's button ticked; None when it already was."""
    rows, changed = [], False
    for row in markup.inline_keyboard if markup else ():
        out = []
        for button in row:
            if button.callback_data == data and not button.text.endswith(TAKEN_MARK):
                button = InlineKeyboardButton(button.text + TAKEN_MARK, callback_data=data)
                changed = True
            out.append(button)
        rows.append(out)
    return InlineKeyboardMarkup(rows) if changed else None


def vote_row(
    message_id: int, language: str, chosen: bool | None = None
) -> list[InlineKeyboardButton]:
    """👍 / 👎 for one answer; the chosen one marked with a tick."""
    labels = [say("helpful", language), say("telegram:not_helpful", language)]
    if chosen is not None:
        labels[0 if chosen else 1] += " ✓"
    return [
        InlineKeyboardButton(labels[0], callback_data=f"{VOTE}:{message_id}:1"),
        InlineKeyboardButton(labels[1], callback_data=f"{VOTE}:{message_id}:0"),
    ]


def vote_taken(
    markup: InlineKeyboardMarkup | None, message_id: int, language: str, helpful: bool
) -> InlineKeyboardMarkup:
    """The answer's keyboard with the vote row showing the user's choice."""
    rows = [
        list(row)
        for row in (markup.inline_keyboard if markup else ())
        if not any(str(b.callback_data or "").startswith(f"{VOTE}:") for b in row)
    ]
    rows.append(vote_row(message_id, language, helpful))
    return InlineKeyboardMarkup(rows)


def language_keyboard() -> InlineKeyboardMarkup:
    """English / 繁體中文 / 简体中文."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(say("language_name", code), callback_data=f"{LANG}:{code}")
                for code in LANGUAGES
            ]
        ]
    )


def core_keyboard(buttons: Sequence[Button]) -> InlineKeyboardMarkup | None:
    """The core's buttons (upload offers, held uploads), one row, as `cb:<action>:<value>`.

    Callback data holds at most 64 bytes: a longer one is left out rather than cut.
    """
    row = [
        InlineKeyboardButton(b.label, callback_data=data)
        for b in buttons
        if len((data := f"cb:{b.action}:{b.value}").encode()) <= 64
    ]
    return InlineKeyboardMarkup([row]) if row else None


def reply_keyboard(out: Reply | ErrorReply) -> InlineKeyboardMarkup | None:
    """The buttons under a fixed reply: the forms list's, or the core's (upload offers)."""
    if isinstance(out, Reply) and out.kind == "forms":
        rows = form_rows(out.data.get("forms", []))
        return InlineKeyboardMarkup(rows) if rows else None
    if isinstance(out, Reply) and out.data.get("buttons"):
        return core_keyboard(out.data["buttons"])
    return None
