"""The Telegram listeners: each reads what it needs from the update and hands it to the core.

Registered on the PTB Application by the adapter. Questions, commands and
uploads are accepted into the core's inbox (`ServingCore.accept`: stored once,
rate limited, admin checked, audited), with the route of their reply; the
core answers them in the background and `bot.telegram.renderer` shows the
answer. The few adapter-local actions (/start, /lang, /new) are claimed with
`first_delivery`, so a repeated update does nothing and they count in the
sender's rate limit; their replies go through the core's outbox like any other
(paced per chat, retried, keyed by the update). Everything up to acceptance
runs inside `accepting()`: when it fails, the update is not acknowledged and
Telegram delivers it again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from telegram import InlineKeyboardMarkup, Message, ReplyKeyboardMarkup, Update
from telegram.constants import ChatAction, ReactionEmoji
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.core.admin.commands import ADMIN
from bot.core.messages import InboundMessage
from bot.core.serving import ServingCore
from bot.settings import Settings
from bot.telegram import translate
from bot.telegram.features import REACTIONS, TelegramFeatures
from bot.telegram.files import file_fetcher
from bot.telegram.intake import accepting
from bot.telegram.languages import chosen_language, reply_language
from bot.telegram.render import escape, language_keyboard, suggestions_keyboard
from bot.telegram.sender import send_payload
from bot.telegram.translate import PLATFORM
from textkit.catalog import say

logger = logging.getLogger(__name__)
Context = ContextTypes.DEFAULT_TYPE


class TelegramHandlers:
    """Listeners bound to one core."""

    def __init__(
        self, core: ServingCore, settings: Settings, features: TelegramFeatures | None = None
    ) -> None:
        self._core = core
        self._state = core.chat_state
        self._drafts = settings.telegram_drafts
        self._features = features or TelegramFeatures()
        self._reacting: set[asyncio.Task[None]] = set()  # 👀 being set

    async def close(self) -> None:
        """Let the reactions being set finish (briefly): the bot closes after."""
        if self._reacting:
            await asyncio.wait(list(self._reacting), timeout=2.0)

    # --- questions, commands, uploads (through the core) -------------------------------

    async def on_text(self, update: Update, context: Context) -> None:
        """A question: every message in a private chat; in groups, mentions and replies."""
        message = update.message
        bot = context.bot
        if message is None or message.from_user is None or not message.text:
            return
        if not translate.addressed(message, bot.username, bot.id):
            return
        with accepting():
            conversation, language = await self._conversation(message, bot.id)
            inbound = translate.inbound(
                message,
                text=translate.strip_mention(message.text, bot.username),
                conversation_key=conversation,
                language=language,
                reply_to=translate.answered_message(message, bot.id),
            )
            group = not translate.is_private(message.chat)
            react = group and self._features.allows(REACTIONS)
            taken = await self._accept(inbound, message, react=react)
        if taken and react:  # seen: 👀 at once, no message (removed with the answer)
            self._react(message)

    def _react(self, message: Message) -> None:
        """👀 on a group question (cleared when the answer arrives), off the listener."""
        task = asyncio.create_task(self._set_reaction(message))
        self._reacting.add(task)
        task.add_done_callback(self._reacting.discard)

    async def _set_reaction(self, message: Message) -> None:
        try:
            await message.set_reaction(ReactionEmoji.EYES)
        except TelegramError as exc:
            self._features.failed(REACTIONS, exc)

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
        with accepting():
            inbound = translate.inbound(
                message,
                text=message.text,
                conversation_key=str(message.chat_id),
                language=await chosen_language(self._core, message.from_user.id),
                command=command,
            )
            await self._accept_admin_aware(inbound, message, context)

    async def _accept_admin_aware(
        self, inbound: InboundMessage, message: Message, context: Context
    ) -> None:
        """Answered in the message's chat, except an admin action in a group: privately."""
        admin_action = inbound.command in ADMIN or inbound.upload_intent
        if not translate.is_private(message.chat) and admin_action:
            await self._accept_privately(inbound, message, context)
            return
        await self._accept(inbound, message)

    async def _accept_privately(
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
            language = inbound.language or await reply_language(self._core, message.from_user)
            admission = await self._core.first_delivery(
                PLATFORM, inbound.delivery_id, inbound.user_id, language
            )
            hint = say("telegram:admin_in_private", language) if admission else admission.notice
            if hint:
                await self._reply(message, "hint", escape(hint))
            return
        # the private chat is the conversation: an upload's result and held notice
        # (findings, buttons) are sent there by the job, never to the group
        private = dataclasses.replace(inbound, conversation_key=str(user_id))
        await self._accept(private, message, private_to=user_id)

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
        with accepting():
            inbound = translate.inbound(
                message,
                text=text,
                conversation_key=str(message.chat_id),
                language=await chosen_language(self._core, message.from_user.id),
                command=command if command and command[0] == "addform" else None,
                attachments=(translate.attachment(document, file_fetcher(context.bot)),),
                upload_intent=command is not None and command[0] == "upload",
            )
            await self._accept_admin_aware(inbound, message, context)

    async def _accept(
        self,
        inbound: InboundMessage,
        message: Message,
        private_to: int | None = None,
        react: bool = False,
    ) -> bool:
        """Into the inbox, with the route of the reply (the message's chat, or `private_to`'s
        private chat); the core answers it in the background. Raises when not accepted;
        False for a message already taken. `react`: the question gets 👀, to remove."""
        route = translate.route(message, drafts=self._drafts, private_to=private_to)
        if react:
            route["react"] = True
        return await self._core.accept(dataclasses.replace(inbound, route=route))

    # --- adapter-local commands ------------------------------------------------------

    async def on_start(self, update: Update, context: Context) -> None:
        """/start: the welcome in the user's language, with suggested questions as buttons;
        `/start <topic>` (a deep link, t.me/<bot>?start=<topic>) asks about that topic."""
        message = update.message
        topic = translate.deep_link_question(context.args or [])
        if topic and message is not None and message.from_user is not None:
            await self._ask_deep_link(message, topic, context)
            return
        first = await self._first(update)
        if first is None:
            return
        message, language = first
        questions: list[str] = []
        if translate.is_private(message.chat):  # a reply keyboard in a group is everyone's
            questions = await self._core.suggested_questions(PLATFORM, None, language)
        text = say("telegram:welcome", language)
        if questions:
            text += "\n\n" + escape(say("telegram:suggestions", language))
        await self._reply(message, "welcome", text, suggestions_keyboard(questions))

    async def _ask_deep_link(self, message: Message, question: str, context: Context) -> None:
        """A deep link's topic, asked as the user's question in this chat."""
        with accepting():
            conversation, language = await self._conversation(message, context.bot.id)
            inbound = translate.inbound(
                message, text=question, conversation_key=conversation, language=language
            )
            await self._accept(inbound, message)

    async def on_lang(self, update: Update, context: Context) -> None:
        """/lang: three buttons (English, 繁體中文, 简体中文)."""
        first = await self._first(update)
        if first is not None:
            message, language = first
            text = escape(say("telegram:choose_language", language))
            await self._reply(message, "lang", text, language_keyboard())

    async def on_new(self, update: Update, context: Context) -> None:
        """/new: a private chat starts a new conversation (groups: mention me anew)."""
        first = await self._first(update)
        if first is None:
            return
        message, language = first
        if translate.is_private(message.chat):
            current = f"{message.chat_id}:{message.message_id}"
            await self._state.remember(PLATFORM, translate.current_key(message.chat_id), current)
            await self._reply(message, "new", escape(say("telegram:new_conversation", language)))
        else:
            await self._reply(message, "new", escape(say("telegram:new_in_group", language)))

    # --- helpers -------------------------------------------------------------------

    async def _first(self, update: Update) -> tuple[Message, str] | None:
        """The update's message and its sender's language, unless this message was already
        handled or the sender is over the rate limit (told once per window, then silence)."""
        message = update.message
        if message is None or message.from_user is None:
            return None
        with accepting():
            language = await reply_language(self._core, message.from_user)
            admission = await self._core.first_delivery(
                PLATFORM, translate.delivery_id(message), str(message.from_user.id), language
            )
        if not admission:
            if admission.notice:
                await self._reply(message, "limit", escape(admission.notice))
            return None
        return message, language

    async def _reply(
        self,
        message: Message,
        part: str,
        html: str,
        markup: InlineKeyboardMarkup | ReplyKeyboardMarkup | None = None,
    ) -> None:
        """A short reply to `message`, through the outbox: paced with the chat's other
        sends, retried on 429 and network errors, and sent once (keyed by the update)."""
        reply_to = None if translate.is_private(message.chat) else message.message_id
        payload = send_payload(message.chat_id, html, markup, reply_to=reply_to)
        key = f"tg:{translate.delivery_id(message)}:{part}"
        await self._core.outbox.enqueue(PLATFORM, str(message.chat_id), key, payload)

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
