"""The Telegram listeners: each reads what it needs from the update and hands it to the core.

Registered on the PTB Application (`register`), with the adapter's own
commands (`bot.telegram.commands`: /start, /lang, /new) and the button
callbacks (`bot.telegram.buttons`). Questions, commands and uploads are
accepted into the core's inbox (`ServingCore.accept`: stored once, rate
limited, admin checked, audited), with the route of their reply; the core
answers them in the background and `bot.telegram.responder` shows the answer.
Everything up to acceptance runs inside `accepting()`: when it fails, the
update is not acknowledged and Telegram delivers it again.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable

from telegram import Message, Update
from telegram.constants import ChatAction
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.core.admin.commands import COMMANDS
from bot.core.messages import Attachment, InboundMessage
from bot.core.serving import ServingCore, ShuttingDownError
from bot.settings import Settings
from bot.telegram import translate
from bot.telegram.buttons import TelegramButtons
from bot.telegram.commands import TelegramCommands
from bot.telegram.conversations import conversation_at
from bot.telegram.delivery import TelegramDelivery
from bot.telegram.features import REACTIONS, TelegramFeatures
from bot.telegram.files import file_fetcher
from bot.telegram.intake import accepting
from bot.telegram.languages import chosen_language, reply_language
from bot.telegram.render import FORM, LANG, RELATED, STOP, VOTE, escape
from bot.telegram.translate import PLATFORM, stopped_draft
from textkit.catalog import say

logger = logging.getLogger(__name__)
Context = ContextTypes.DEFAULT_TYPE
# run by the core: its own command names, and Telegram's names for some of them
# (/deldoc for /delete, as its help text says)
CORE_COMMANDS = [*COMMANDS, *translate.CORE_COMMANDS]


def register(
    app: Application,  # type: ignore[type-arg]
    listeners: TelegramListeners,
    commands: TelegramCommands,
    buttons: TelegramButtons,
    stop_draft: Callable[[int, int], Awaitable[None]],
) -> None:
    """Every listener, command and button callback on `app`, and the error handler."""
    h, c, b = listeners, commands, buttons
    new_only = filters.UpdateType.MESSAGE  # edits of old messages are not new questions
    app.add_handler(CommandHandler("start", c.on_start, filters=new_only))
    app.add_handler(CommandHandler("lang", c.on_lang, filters=new_only))
    app.add_handler(CommandHandler("new", c.on_new, filters=new_only))
    app.add_handler(CommandHandler(CORE_COMMANDS, h.on_command, filters=new_only))
    app.add_handler(MessageHandler(new_only & filters.Document.ALL, h.on_document))
    app.add_handler(MessageHandler(new_only & filters.TEXT & ~filters.COMMAND, h.on_text))
    spoken_or_shown = filters.VOICE | filters.AUDIO | filters.PHOTO
    app.add_handler(MessageHandler(new_only & spoken_or_shown, h.on_media))
    app.add_handler(
        MessageHandler(new_only & filters.COMMAND & filters.ChatType.PRIVATE, h.on_command)
    )
    app.add_handler(CallbackQueryHandler(b.on_vote, pattern=rf"^{VOTE}:\d+:[01]$"))
    app.add_handler(CallbackQueryHandler(b.on_language_choice, pattern=rf"^{LANG}:"))
    app.add_handler(CallbackQueryHandler(b.on_form_button, pattern=rf"^{FORM}:"))
    app.add_handler(CallbackQueryHandler(b.on_stop, pattern=rf"^{STOP}:"))
    app.add_handler(CallbackQueryHandler(b.on_related, pattern=rf"^{RELATED}:\d$"))
    app.add_handler(CallbackQueryHandler(b.on_core_button, pattern=rf"^{translate.CORE_BUTTON}:"))

    async def on_stopped_generation(update: Update, context: Context) -> None:
        """Telegram's stop button on a draft (python-telegram-bot keeps the update, which
        it does not know yet, in `api_kwargs`): the turn writing that draft stops."""
        stopped = stopped_draft(update)
        if stopped is not None:
            await stop_draft(*stopped)

    # last: only what no handler above took (Telegram's stop button on a draft)
    app.add_handler(TypeHandler(Update, on_stopped_generation))
    app.add_error_handler(on_error)


async def on_error(update: object, context: Context) -> None:
    """A listener failed: logged (a refusal while draining only noted: Telegram retries)."""
    error = context.error
    kind = type(update).__name__
    if isinstance(error, ShuttingDownError):  # not taken: Telegram delivers it again
        logger.info("telegram %s refused: %s", kind, error)
        return
    logger.error("telegram %s failed: %s", kind, error, exc_info=error)


class TelegramListeners:
    """Listeners bound to one core; replies and reactions go out through `delivery`."""

    def __init__(
        self,
        core: ServingCore,
        settings: Settings,
        delivery: TelegramDelivery,
        features: TelegramFeatures,
    ) -> None:
        self._core = core
        self._drafts = settings.telegram_drafts
        self._delivery = delivery
        self._features = features

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
            self._delivery.react_seen(message)

    async def on_media(self, update: Update, context: Context) -> None:
        """A voice note, an audio file or a photo: a question, which the core transcribes or
        reads (OCR) and answers with the caption; heard where a typed question is (groups:
        a mention in the caption, or a reply to the bot). A photo captioned
        `/upload [title]` is an upload, as such a document is (not when forwarded: the
        caption is then its original sender's)."""
        message = update.message
        bot = context.bot
        if message is None or message.from_user is None:
            return
        attachment = translate.media_attachment(message, file_fetcher(bot))
        if attachment is None:
            return
        caption = message.caption or ""
        command = translate.split_command(caption, bot.username)
        if command is not None:
            if command[0] == "upload" and attachment.kind == "photo":
                if message.forward_origin is None:
                    upload = dataclasses.replace(attachment, kind="file")
                    await self._send_upload(message, caption, upload, context)
                return
            caption = ""  # another command is no part of the question
        if not translate.addressed(message, bot.username, bot.id):
            return
        with accepting():
            conversation, language = await self._conversation(message, bot.id)
            inbound = translate.inbound(
                message,
                text=translate.strip_mention(caption, bot.username),
                conversation_key=conversation,
                language=language,
                attachments=(attachment,),
                reply_to=translate.answered_message(message, bot.id),
            )
            group = not translate.is_private(message.chat)
            react = group and self._features.allows(REACTIONS)
            taken = await self._accept(inbound, message, react=react)
        if taken and react:
            self._delivery.react_seen(message)

    async def _send_upload(
        self, message: Message, caption: str, upload: Attachment, context: Context
    ) -> None:
        """A photo sent to be added, through the core as a document's upload is."""
        await self._send_file(message, caption, upload, None, True, context)

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
        if not translate.is_private(message.chat) and self._core.is_admin_action(inbound):
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
                await self._delivery.reply(message, "hint", escape(hint))
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
        if document is None:
            return
        await self._send_file(
            message,
            text,
            translate.attachment(document, file_fetcher(context.bot)),
            command if command and command[0] == "addform" else None,
            command is not None and command[0] == "upload",
            context,
        )

    async def _send_file(
        self,
        message: Message,
        text: str,
        attachment: Attachment,
        command: tuple[str, tuple[str, ...]] | None,
        upload_intent: bool,
        context: Context,
    ) -> None:
        """A file (a document, an upload's photo) through the core with its caption."""
        if message.from_user is None:
            return
        with accepting():
            inbound = translate.inbound(
                message,
                text=text,
                conversation_key=str(message.chat_id),
                language=await chosen_language(self._core, message.from_user.id),
                command=command,
                attachments=(attachment,),
                upload_intent=upload_intent,
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
        return bool(await self._core.accept(dataclasses.replace(inbound, route=route)))

    async def ask(self, message: Message, question: str, context: Context) -> None:
        """A deep link's topic, asked as the user's question in this chat."""
        with accepting():
            conversation, language = await self._conversation(message, context.bot.id)
            inbound = translate.inbound(
                message, text=question, conversation_key=conversation, language=language
            )
            await self._accept(inbound, message)

    async def _conversation(self, message: Message, bot_id: int) -> tuple[str, str | None]:
        """(conversation key, chosen language), read together.

        Private: the chat until /new. Groups: the user's thread of replies to the bot.
        """
        user_id = message.from_user.id if message.from_user else 0
        replied = message.reply_to_message if translate.replies_to_bot(message, bot_id) else None
        return await conversation_at(
            self._core,
            message.chat,
            user_id,
            replied.message_id if replied is not None else None,
            message.message_id,
        )
