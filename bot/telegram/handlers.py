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
from typing import Any

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatAction, ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.core.commands import ADMIN
from bot.core.dispatcher import ServingCore
from bot.core.messages import FinalAnswer, InboundMessage, Progress, Reply, Token
from bot.settings import Settings
from bot.telegram import translate
from bot.telegram.files import document_fetcher, send_form_file
from bot.telegram.languages import chosen_language, reply_language
from bot.telegram.render import (
    core_keyboard,
    form_rows,
    language_keyboard,
)
from bot.telegram.responder import ChatPacer, TelegramResponder
from bot.telegram.translate import PLATFORM
from textkit.catalog import say

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
            language=await chosen_language(self._core, message.from_user.id),
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
                language = inbound.language or await reply_language(self._core, message.from_user)
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
            language=await chosen_language(self._core, message.from_user.id),
            command=command if command and command[0] == "addform" else None,
            attachments=(translate.attachment(document, document_fetcher(context)),),
            upload_intent=command is not None and command[0] == "upload",
        )
        await self._run_admin_aware(inbound, message, context)

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
                await send_form_file(self._core, str(form["name"]), chat_id, context)

    # --- adapter-local commands ------------------------------------------------------

    async def on_start(self, update: Update, context: Context) -> None:
        """/start: the welcome, in the user's language."""
        message = await self._first(update)
        if message is not None:
            language = await reply_language(self._core, message.from_user)
            await message.reply_text(say("telegram:welcome", language), parse_mode=ParseMode.HTML)

    async def on_lang(self, update: Update, context: Context) -> None:
        """/lang: three buttons (English, 繁體中文, 简体中文)."""
        message = await self._first(update)
        if message is not None:
            language = await reply_language(self._core, message.from_user)
            await message.reply_text(
                say("telegram:choose_language", language), reply_markup=language_keyboard()
            )

    async def on_new(self, update: Update, context: Context) -> None:
        """/new: a private chat starts a new conversation (groups: mention me anew)."""
        message = await self._first(update)
        if message is None:
            return
        language = await reply_language(self._core, message.from_user)
        if translate.is_private(message.chat):
            current = f"{message.chat_id}:{message.message_id}"
            await self._state.remember(PLATFORM, translate.current_key(message.chat_id), current)
            await message.reply_text(say("telegram:new_conversation", language))
        else:
            await message.reply_text(say("telegram:new_in_group", language))

    # --- helpers -------------------------------------------------------------------

    async def _first(self, update: Update) -> Message | None:
        """The update's message, unless this message was already handled."""
        message = update.message
        if message is None or message.from_user is None:
            return None
        if not await self._core.first_delivery(PLATFORM, translate.delivery_id(message)):
            return None
        return message

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
