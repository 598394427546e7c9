"""The Telegram button callbacks: votes, upload offers and held uploads, /lang, /forms files,
a refusal's FAQ questions.

Callback data is chosen by the client: each callback checks it (a vote and a
core button count only when the message really carries that button). Every
press is claimed once (`first_delivery`) and counts in the presser's rate
limit: over it, the first press in a window shows the notice, later ones
nothing. A button's result that must arrive (a form's file, an upload choice)
goes through the outbox.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging

from telegram import CallbackQuery, Message, Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.core.messages import Reply
from bot.core.serving import ServingCore
from bot.telegram import translate
from bot.telegram.conversations import conversation_at
from bot.telegram.delivery import edit_payload, file_payload
from bot.telegram.files import file_fetcher
from bot.telegram.intake import accepting
from bot.telegram.languages import reply_language
from bot.telegram.render import (
    asked_question,
    escape,
    form_key,
    related_asked,
    related_taken,
    vote_taken,
)
from bot.telegram.translate import PLATFORM
from textkit.catalog import LANGUAGES, say

logger = logging.getLogger(__name__)
Context = ContextTypes.DEFAULT_TYPE


class TelegramButtons:
    """Button callbacks bound to one core."""

    def __init__(self, core: ServingCore, drafts: bool = False) -> None:
        self._core = core
        self._drafts = drafts  # an answer in a private chat streams as a draft

    async def _admit(self, query: CallbackQuery, counted: bool = True) -> str | None:
        """The presser's language when the press should run; None when not (a repeat, or
        over the rate limit: the notice as an alert the first time, else silence).
        `counted=False`: only once, never refused by the rate limit (Stop)."""
        with accepting():
            language = await reply_language(self._core, query.from_user)
            admission = await self._core.first_delivery(
                PLATFORM,
                f"callback:{query.id}",
                str(query.from_user.id) if counted else None,
                language,
            )
        if admission:
            return language
        with contextlib.suppress(TelegramError):  # a repeat: already answered
            if admission.notice:
                await query.answer(admission.notice, show_alert=True)
            else:
                await query.answer()  # stops the button's spinner, says nothing
        return None

    async def on_vote(self, update: Update, context: Context) -> None:
        """👍 / 👎 under an answer: stored (one vote per user, changeable), then acknowledged."""
        query = update.callback_query
        if query is None or query.data is None:
            return
        language = await self._admit(query)
        if language is None:
            return
        _, message_id, value = query.data.split(":")
        helpful = value == "1"
        user = query.from_user
        where = translate.vote_origin(query.message, query.data, user.id)
        stored = where is not None and await self._core.feedback(
            PLATFORM, str(user.id), int(message_id), helpful, where
        )
        await query.answer(say("telegram:thanks" if stored else "telegram:vote_gone", language))
        if stored and isinstance(query.message, Message):
            markup = vote_taken(query.message.reply_markup, int(message_id), language, helpful)
            try:
                await query.edit_message_reply_markup(markup)
            except TelegramError as exc:  # e.g. "not modified" when the same vote comes again
                logger.debug("vote buttons not updated: %s", exc)

    async def on_stop(self, update: Update, context: Context) -> None:
        """Stop under an answer being written: the asker's press stops the turn (the
        answer then ends with what was written); anyone else is told in a toast."""
        query = update.callback_query
        if query is None or query.data is None:
            return
        language = await self._admit(query, counted=False)  # over the limit, still stops
        if language is None:
            return
        delivery_id = query.data.partition(":")[2]
        # the callback data is the client's: only the Stop button the message carries
        if not translate.carries_button(query.message, query.data):
            await query.answer()
            return
        outcome = await self._core.stop_turn(PLATFORM, delivery_id, str(query.from_user.id))
        if outcome in ("stopped", "passed"):  # "passed": another worker runs it
            await query.answer()
            return
        key = "turn:stop_not_yours" if outcome == "not_yours" else "turn:stop_over"
        await query.answer(say(key, language))

    async def on_core_button(self, update: Update, context: Context) -> None:
        """An upload offer's or a held upload's button: the core checks who pressed it.

        The presser's own press of someone else's file changes nothing and only
        says so in a toast; a choice made replaces the buttons with its result
        (through the outbox: sent as a new message if the old one is gone).
        """
        query = update.callback_query
        if query is None or query.data is None:
            return
        language = await self._admit(query)
        if language is None:
            return
        parsed = translate.core_button(query.data)
        # callback data is the client's: only a button the message really carries counts
        if parsed is None or not translate.carries_button(query.message, query.data):
            await query.answer()
            return
        action, value = parsed
        shown = query.message
        if action == "handoff":
            reply = await self._ask_person(query, value, language)
        else:
            reply = await self._core.press(
                PLATFORM,
                str(query.from_user.id),
                action,
                value,
                file_fetcher(context.bot),
                language=language,
                chat=str(shown.chat.id) if shown is not None else None,
            )
        if reply.data.get("silent"):  # the hand-off desk's own messages say what happened
            await query.answer()
            return
        if reply.kind == "not_yours" or reply.data.get("private"):
            # only the presser is told; the message (maybe in a group) stays as it is
            await query.answer(reply.text, show_alert=True)
            return
        await query.answer()
        if shown is None:
            return
        chat = shown.chat.id
        await self._core.enqueue(
            PLATFORM,
            str(chat),
            f"tg:callback:{query.id}:result",
            edit_payload(chat, shown.message_id, escape(reply.text)),
        )

    async def _ask_person(self, query: CallbackQuery, value: str, language: str) -> Reply:
        """The "Ask a person" button under an answer: only from a message carrying it (in a
        private chat, only from its user); people's replies go to the same chat."""
        user = query.from_user
        where = translate.vote_origin(query.message, query.data or "", user.id)
        shown = query.message
        if where is None or shown is None or not value.isdigit():
            return Reply(say("handoff:gone", language), language, "handoff_gone", {"private": True})
        group = not translate.is_private(shown.chat)
        route = {
            "chat_id": shown.chat.id,
            # in a group, people's replies answer the asker's question, as the bot's did
            "reply_to": _replied_id(shown) if group else None,
            "group": group,
            "drafts": False,
        }
        return await self._core.ask_person(
            PLATFORM, str(user.id), int(value), where, route, language
        )

    async def on_related(self, update: Update, context: Context) -> None:
        """A refusal's FAQ question's number pressed: asked as the presser's question, in
        the refusal's conversation (as a reply to it would be), and answered under the
        refusal; its number is ticked once an answer is on its way.

        The question is read from Telegram's copy of the message (callback data
        is the client's word: only a place). In a private chat only its user may
        press, and a ticked number asks nothing again; in a group anyone may press
        (as anyone may reply to the bot there), a ticked number too. Each press is
        its own delivery (Telegram delivering it again is the same one); a press
        over the rate limit gets the limit's notice and leaves the number unticked.
        """
        query = update.callback_query
        if query is None or query.from_user is None:
            return
        shown, user, data = query.message, query.from_user, query.data or ""
        told = self._core.pick_language("", user.language_code)
        if not isinstance(shown, Message):  # too old for Telegram to show it to the bot
            with contextlib.suppress(TelegramError):
                await query.answer(say("handoff:gone", told))
            return
        private = translate.is_private(shown.chat)
        question = asked_question(shown, data) if not private or shown.chat.id == user.id else None
        if question is None or (private and related_asked(shown.reply_markup, data)):
            note = None if question is None else say("telegram:asked_already", told)
            with contextlib.suppress(TelegramError):
                await query.answer(note)
            return
        with accepting():
            conversation, language = await conversation_at(
                self._core, shown.chat, user.id, shown.message_id, shown.message_id
            )
            inbound = translate.pressed_question(
                query.id, shown, user, question, conversation_key=conversation, language=language
            )
            route = {
                "chat_id": shown.chat.id,
                "reply_to": shown.message_id,
                "group": not private,
                "drafts": self._drafts and private,
                # no one wrote it in the chat: its answer says who asked what
                "asked": question,
            }
            if not private:  # the group reads who asked, linked to their account
                route |= {"asker": user.full_name, "asker_id": user.id}
            accepted = await self._core.accept(dataclasses.replace(inbound, route=route))
        with contextlib.suppress(TelegramError):
            await query.answer()
        markup = shown.reply_markup
        ticked = related_taken(markup, data) if accepted and not accepted.limited else None
        if ticked is not None:
            try:
                await query.edit_message_reply_markup(ticked)
            except TelegramError as exc:  # e.g. the message is gone: the answer still comes
                logger.debug("related question's number not ticked: %s", exc)

    async def on_language_choice(self, update: Update, context: Context) -> None:
        """A /lang button: remembered for every later answer."""
        query = update.callback_query
        if query is None or query.data is None:
            return
        if await self._admit(query) is None:
            return
        code = query.data.split(":", 1)[1]
        if code not in LANGUAGES:
            await query.answer()
            return
        await self._core.remember(PLATFORM, translate.language_key(query.from_user.id), code)
        await query.answer()
        await query.edit_message_text(say("telegram:language_set", code))

    async def on_form_button(self, update: Update, context: Context) -> None:
        """A /forms button of a form that has only a file: the file is sent (outbox)."""
        query = update.callback_query
        if query is None or query.data is None or query.message is None:
            return
        language = await self._admit(query)
        if language is None:
            return
        key = query.data.split(":", 1)[1]
        forms = await self._core.forms(PLATFORM)
        names = [f["name"] for f in forms if form_key(f["name"]) == key and f.get("file")]
        if names:
            chat = query.message.chat.id
            await self._core.enqueue(
                PLATFORM, str(chat), f"tg:callback:{query.id}:file", file_payload(chat, names[0])
            )
        await query.answer(None if names else say("telegram:form_missing", language))


def _replied_id(message: object) -> int | None:
    """The message an answer replied to (the asker's question in a group), if known."""
    replied = getattr(message, "reply_to_message", None)
    return replied.message_id if replied is not None else None
