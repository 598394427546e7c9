"""The commands the adapter answers itself: /start (the welcome, or a deep link's question),
/lang and /new.

Each is claimed with `first_delivery`, so a repeated update does nothing and it
counts in the sender's rate limit; the reply goes through the core's outbox like
any other (paced per chat, retried, keyed by the update). Claiming runs inside
`accepting()`: when it fails, the update is not acknowledged and Telegram
delivers it again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import Message, Update
from telegram.ext import ContextTypes

from bot.core.serving import ServingCore
from bot.telegram import translate
from bot.telegram.delivery import TelegramDelivery
from bot.telegram.intake import accepting
from bot.telegram.languages import reply_language
from bot.telegram.render import escape, language_keyboard, suggestions_keyboard
from bot.telegram.translate import PLATFORM
from textkit.catalog import say

Context = ContextTypes.DEFAULT_TYPE
# asks a question as the user (a deep link's): the listeners' way into the core
Ask = Callable[[Message, str, Context], Awaitable[None]]


class TelegramCommands:
    """/start, /lang and /new, bound to one core."""

    def __init__(self, core: ServingCore, delivery: TelegramDelivery, ask: Ask) -> None:
        self._core = core
        self._delivery = delivery
        self._ask = ask

    async def on_start(self, update: Update, context: Context) -> None:
        """/start: the welcome in the user's language, with suggested questions as buttons;
        `/start <topic>` (a deep link, t.me/<bot>?start=<topic>) asks about that topic."""
        message = update.message
        topic = translate.deep_link_question(context.args or [])
        if topic and message is not None and message.from_user is not None:
            await self._ask(message, topic, context)
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
        await self._delivery.reply(message, "welcome", text, suggestions_keyboard(questions))

    async def on_lang(self, update: Update, context: Context) -> None:
        """/lang: three buttons (English, 繁體中文, 简体中文)."""
        first = await self._first(update)
        if first is not None:
            message, language = first
            text = escape(say("telegram:choose_language", language))
            await self._delivery.reply(message, "lang", text, language_keyboard())

    async def on_new(self, update: Update, context: Context) -> None:
        """/new: a private chat starts a new conversation (groups: mention me anew)."""
        first = await self._first(update)
        if first is None:
            return
        message, language = first
        if translate.is_private(message.chat):
            current = f"{message.chat_id}:{message.message_id}"
            await self._core.remember(PLATFORM, translate.current_key(message.chat_id), current)
            await self._delivery.reply(
                message, "new", escape(say("telegram:new_conversation", language))
            )
        else:
            await self._delivery.reply(
                message, "new", escape(say("telegram:new_in_group", language))
            )

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
                await self._delivery.reply(message, "limit", escape(admission.notice))
            return None
        return message, language
