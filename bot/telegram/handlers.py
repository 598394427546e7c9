"""The Telegram listeners: each reads what it needs from the update, asks the core, renders.

Registered on the PTB Application by the adapter. Questions, commands and
uploads go through `ServingCore.handle` (claimed once, rate limited, admin
checked, audited); the few adapter-local actions (/start, /lang, /new, the
buttons) are claimed with `first_delivery` so a repeated update does nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import InlineKeyboardMarkup, InputFile, Message, Update, User
from telegram.constants import ChatAction, ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.core.commands import ADMIN
from bot.core.dispatcher import ServingCore, pick_language
from bot.core.messages import FinalAnswer, InboundMessage, Progress, Reply, Token
from bot.settings import Settings
from bot.telegram import translate
from bot.telegram.render import (
    core_keyboard,
    escape,
    form_key,
    form_rows,
    language_keyboard,
    vote_taken,
)
from bot.telegram.responder import ChatPacer, TelegramResponder
from bot.telegram.translate import PLATFORM
from textkit.catalog import LANGUAGES, say

logger = logging.getLogger(__name__)
Context = ContextTypes.DEFAULT_TYPE


class TelegramHandlers:
    """Listeners bound to one core and one bot."""

    def __init__(self, core: ServingCore, settings: Settings) -> None:
        self._core = core
        self._state = core.chat_state
        self._drafts = settings.telegram_drafts
        self.pacer = ChatPacer(settings.telegram_update_interval_s)

    # --- questions, commands, uploads (through the core) -------------------------------

    async def on_text(self, update: Update, context: Context) -> None:
        """A question: every message in a private chat; in groups, mentions and replies."""
        message = update.message
        bot = context.bot
        if message is None or message.from_user is None or not message.text:
            return
        if not translate.addressed(message, bot.username, bot.id):
            return
        conversation, language = await self._conversation(message, bot.id)
        inbound = translate.inbound(
            message,
            text=translate.strip_mention(message.text, bot.username),
            conversation_key=conversation,
            language=language,
        )
        await self._run(inbound, message, context)

    async def on_command(self, update: Update, context: Context) -> None:
        """/help, /forms and the admin commands: run by the core."""
        message = update.message
        if message is None or message.from_user is None or not message.text:
            return
        command = translate.split_command(message.text, context.bot.username)
        if command is None:
            return
        replied = message.reply_to_message
        if command[0] == "upload" and replied is not None and replied.document is not None:
            # `/upload [title]` replying to a document: that document, as asked
            await self._send_document(message, replied, message.text, command, context)
            return
        inbound = translate.inbound(
            message,
            text=message.text,
            conversation_key=str(message.chat_id),
            language=await self._chosen_language(message.from_user.id),
            command=command,
        )
        await self._run_admin_aware(inbound, message, context)

    async def _run_admin_aware(
        self, inbound: InboundMessage, message: Message, context: Context
    ) -> None:
        """Run in the message's chat, except an admin action in a group: privately."""
        admin_action = inbound.command in ADMIN or inbound.upload_intent
        if not translate.is_private(message.chat) and admin_action:
            await self._run_privately(inbound, message, context)
            return
        await self._run(inbound, message, context)

    async def _run_privately(
        self, inbound: InboundMessage, message: Message, context: Context
    ) -> None:
        """An admin command or upload sent in a group: answered in the sender's private
        chat, never in the group; when the bot may not write to them there, refused with
        a hint (and nothing is run: no file is read or stored)."""
        user_id = int(inbound.user_id)
        try:  # a bot may only write to users who started it: ask Telegram first
            await context.bot.send_chat_action(user_id, ChatAction.TYPING)
        except TelegramError as exc:
            logger.info("no private chat with %s for a group command: %s", user_id, exc)
            if await self._core.first_delivery(PLATFORM, inbound.delivery_id):
                language = inbound.language or await self._reply_language(message.from_user)
                await message.reply_text(say("telegram:admin_in_private", language))
            return
        # the private chat is the conversation: an upload's result and held notice
        # (findings, buttons) are sent there by the job, never to the group
        private = dataclasses.replace(inbound, conversation_key=str(user_id))
        await self._run(private, message, context, private_to=user_id)

    async def on_document(self, update: Update, context: Context) -> None:
        """A file: an upload (caption `/upload [title]`), a form's file, or else only offered.

        A forwarded document's caption is its original sender's, never an admin's
        intent. In groups only an explicit /upload or /addform is heard.
        """
        message = update.message
        if message is None or message.from_user is None or message.document is None:
            return
        caption = "" if message.forward_origin is not None else message.caption or ""
        command = translate.split_command(caption, context.bot.username)
        if command is not None and command[0] not in ("upload", "addform"):
            command = None
        if not translate.is_private(message.chat) and command is None:
            return
        await self._send_document(message, message, caption, command, context)

    async def _send_document(
        self,
        message: Message,
        carrier: Message,
        text: str,
        command: tuple[str, tuple[str, ...]] | None,
        context: Context,
    ) -> None:
        """`carrier`'s document through the core, as `message` (itself, or a `/upload` reply)."""
        document = carrier.document
        if document is None or message.from_user is None:
            return
        inbound = translate.inbound(
            message,
            text=text,
            conversation_key=str(message.chat_id),
            language=await self._chosen_language(message.from_user.id),
            command=command if command and command[0] == "addform" else None,
            attachments=(translate.attachment(document, self._fetcher(context)),),
            upload_intent=command is not None and command[0] == "upload",
        )
        await self._run_admin_aware(inbound, message, context)

    @staticmethod
    def _fetcher(context: Context) -> Callable[[str], Awaitable[bytes]]:
        """Downloads a document by its file id (getFile, then the file URL)."""
        bot = context.bot

        async def fetch(file_id: str) -> bytes:
            file = await bot.get_file(file_id)
            return bytes(await file.download_as_bytearray())

        return fetch

    async def _run(
        self,
        inbound: InboundMessage,
        message: Message,
        context: Context,
        private_to: int | None = None,
    ) -> None:
        """Render the core's reply in the message's chat (or `private_to`'s private chat)."""
        group = private_to is None and not translate.is_private(message.chat)
        responder = TelegramResponder(
            context.bot,
            private_to or message.chat_id,
            self.pacer,
            reply_to=message.message_id if group else None,
            drafts=self._drafts and not group,
        )
        try:
            # aclosing: if sending fails, the core releases the claim now, not at GC
            async with contextlib.aclosing(self._core.handle(inbound)) as events:
                async for out in events:
                    if isinstance(out, Progress | Token):
                        await responder.start()
                    await responder.render(out, self._reply_keyboard(out))
                    if isinstance(out, FinalAnswer):
                        if group:  # now, not after the form files: a reply may come quickly
                            await self._remember_thread(message.chat_id, responder, inbound)
                        await self._send_form_files(out, message.chat_id, context)
            if group:  # replies and refusals too: a reply to any of them continues here
                await self._remember_thread(message.chat_id, responder, inbound)
        except TelegramError as exc:
            logger.error("could not answer in chat %s: %s", message.chat_id, exc)
        finally:
            await responder.close()

    @staticmethod
    def _reply_keyboard(out: Any) -> InlineKeyboardMarkup | None:
        if isinstance(out, Reply) and out.kind == "forms":
            rows = form_rows(out.data.get("forms", []))
            return InlineKeyboardMarkup(rows) if rows else None
        if isinstance(out, Reply) and out.data.get("buttons"):
            return core_keyboard(out.data["buttons"])
        return None

    async def _send_form_files(self, answer: FinalAnswer, chat_id: int, context: Context) -> None:
        for form in answer.forms:
            if form.get("send_file"):
                await self._send_form_file(str(form["name"]), chat_id, context)

    async def _send_form_file(self, name: str, chat_id: int, context: Context) -> bool:
        file = await self._core.form_file(PLATFORM, name)
        if file is None:
            return False
        await context.bot.send_document(
            chat_id, InputFile(file.data, filename=file.name), caption=name[:1024]
        )
        return True

    # --- adapter-local commands ------------------------------------------------------

    async def on_start(self, update: Update, context: Context) -> None:
        """/start: the welcome, in the user's language."""
        message = await self._first(update)
        if message is not None:
            language = await self._reply_language(message.from_user)
            await message.reply_text(say("telegram:welcome", language), parse_mode=ParseMode.HTML)

    async def on_lang(self, update: Update, context: Context) -> None:
        """/lang: three buttons (English, 繁體中文, 简体中文)."""
        message = await self._first(update)
        if message is not None:
            language = await self._reply_language(message.from_user)
            await message.reply_text(
                say("telegram:choose_language", language), reply_markup=language_keyboard()
            )

    async def on_new(self, update: Update, context: Context) -> None:
        """/new: a private chat starts a new conversation (groups: mention me anew)."""
        message = await self._first(update)
        if message is None:
            return
        language = await self._reply_language(message.from_user)
        if translate.is_private(message.chat):
            current = f"{message.chat_id}:{message.message_id}"
            await self._state.remember(PLATFORM, translate.current_key(message.chat_id), current)
            await message.reply_text(say("telegram:new_conversation", language))
        else:
            await message.reply_text(say("telegram:new_in_group", language))

    # --- buttons ---------------------------------------------------------------

    async def on_vote(self, update: Update, context: Context) -> None:
        """👍 / 👎 under an answer: stored (one vote per user, changeable), then acknowledged."""
        query = update.callback_query
        if query is None or query.data is None:
            return
        _, message_id, value = query.data.split(":")
        helpful = value == "1"
        user = query.from_user
        language = await self._reply_language(user)
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

    async def on_core_button(self, update: Update, context: Context) -> None:
        """An upload offer's or a held upload's button: the core checks who pressed it.

        The presser's own press of someone else's file changes nothing and only
        says so in a toast; a choice made replaces the buttons with its result.
        """
        query = update.callback_query
        if query is None or query.data is None:
            return
        if not await self._core.first_delivery(PLATFORM, f"callback:{query.id}"):
            return  # the same press delivered again
        parsed = translate.core_button(query.data)
        # callback data is the client's: only a button the message really carries counts
        if parsed is None or not translate.carries_button(query.message, query.data):
            await query.answer()
            return
        action, value = parsed
        language = await self._reply_language(query.from_user)
        reply = await self._core.press(
            PLATFORM,
            str(query.from_user.id),
            action,
            value,
            self._fetcher(context),
            language=language,
        )
        if reply.kind == "not_yours" or reply.data.get("private"):
            # only the presser is told; the message (maybe in a group) stays as it is
            await query.answer(reply.text, show_alert=True)
            return
        await query.answer()
        try:
            await query.edit_message_text(escape(reply.text), parse_mode=ParseMode.HTML)
        except TelegramError as exc:  # the message is gone: say it in the chat instead
            logger.info("offer message not edited: %s", exc)
            if query.message is not None:
                await context.bot.send_message(
                    query.message.chat.id, escape(reply.text), parse_mode=ParseMode.HTML
                )

    async def on_language_choice(self, update: Update, context: Context) -> None:
        """A /lang button: remembered for every later answer."""
        query = update.callback_query
        if query is None or query.data is None:
            return
        code = query.data.split(":", 1)[1]
        if code not in LANGUAGES:
            await query.answer()
            return
        await self._state.remember(PLATFORM, translate.language_key(query.from_user.id), code)
        await query.answer()
        await query.edit_message_text(say("telegram:language_set", code))

    async def on_form_button(self, update: Update, context: Context) -> None:
        """A /forms button of a form that has only a file: send the file."""
        query = update.callback_query
        if query is None or query.data is None or query.message is None:
            return
        key = query.data.split(":", 1)[1]
        names = [f["name"] for f in await self._core.forms(PLATFORM) if form_key(f["name"]) == key]
        sent = bool(names) and await self._send_form_file(names[0], query.message.chat.id, context)
        language = await self._reply_language(query.from_user)
        await query.answer(None if sent else say("telegram:form_missing", language))

    # --- helpers -------------------------------------------------------------------

    async def _first(self, update: Update) -> Message | None:
        """The update's message, unless this message was already handled."""
        message = update.message
        if message is None or message.from_user is None:
            return None
        if not await self._core.first_delivery(PLATFORM, translate.delivery_id(message)):
            return None
        return message

    async def _chosen_language(self, user_id: int) -> str | None:
        return await self._state.recall(PLATFORM, translate.language_key(user_id))

    async def _reply_language(self, user: User | None) -> str:
        """The user's /lang choice, else what their Telegram client's language suggests."""
        chosen = await self._chosen_language(user.id) if user else None
        return chosen or pick_language("", user.language_code if user else None)

    async def _remember_thread(
        self, chat_id: int, responder: TelegramResponder, inbound: InboundMessage
    ) -> None:
        """The bot's messages so far belong to this conversation (for replies in groups)."""
        if responder.sent:
            keys = [translate.message_key(chat_id, m.message_id) for m in responder.sent]
            await self._state.remember_many(PLATFORM, keys, inbound.conversation_key)

    async def _conversation(self, message: Message, bot_id: int) -> tuple[str, str | None]:
        """(conversation key, chosen language), read together.

        Private: the chat until /new. Groups: the user's thread of replies to the bot.
        """
        chat_id, user_id = message.chat_id, message.from_user.id if message.from_user else 0
        private = translate.is_private(message.chat)
        replied = message.reply_to_message if translate.replies_to_bot(message, bot_id) else None
        language_key = translate.language_key(user_id)
        if private:
            thread_key: str | None = translate.current_key(chat_id)
        elif replied is not None:
            thread_key = translate.message_key(chat_id, replied.message_id)
        else:
            thread_key = None
        keys = [language_key] + ([thread_key] if thread_key else [])
        found = await self._state.recall_many(PLATFORM, keys)
        conversation = found.get(thread_key) if thread_key else None
        if conversation is None:
            conversation = (
                str(chat_id)
                if private
                else translate.group_conversation(chat_id, user_id, message.message_id)
            )
        return conversation, found.get(language_key)
