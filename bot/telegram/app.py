"""The Telegram adapter: python-telegram-bot's listeners on the serving core's inbox and outbox.

Long polling by default (our own loop, `bot.telegram.poller`: the offset moves
past an update only once the core took it). With TELEGRAM_WEBHOOK_URL set,
updates arrive on `POST /telegram/webhook` of the shared ASGI server, each
checked against TELEGRAM_WEBHOOK_SECRET (`X-Telegram-Bot-Api-Secret-Token`;
wrong or missing: 401, nothing runs) and processed before the answer: 200 once
taken (or a repeat, or nothing for the bot), 503 when the core could not take
it (draining, Postgres down), so Telegram delivers it again. The webhook is
registered with setWebhook at start. Telegram allows one poller per token, so
several workers need webhook mode; a second poller is refused at start (a
Postgres advisory lock says so).

The listeners only translate and accept (`bot.telegram.handlers`); the core
answers in the background through the renderer (`bot.telegram.renderer`), and
final messages and upload results go out through the outbox
(`bot.telegram.sender`), on one pace per chat shared with the previews.
"""

from __future__ import annotations

import hmac
import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from telegram import BotCommand, BotCommandScopeChat, BotCommandScopeDefault, Update
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

from bot.core.delivery.loops import on_core_loop
from bot.core.messages import UploadOutcome
from bot.core.serving import ServingCore, ShuttingDownError
from bot.settings import ConfigurationError, Settings
from bot.telegram import intake, translate
from bot.telegram.buttons import TelegramButtons
from bot.telegram.cases import TelegramCases
from bot.telegram.features import DESCRIPTIONS, TelegramFeatures
from bot.telegram.files import file_fetcher
from bot.telegram.handlers import TelegramHandlers
from bot.telegram.menus import admin_commands, descriptions, public_commands
from bot.telegram.poller import Poller
from bot.telegram.render import FORM, LANG, STOP, VOTE, core_keyboard, escape
from bot.telegram.renderer import TelegramRenderer
from bot.telegram.responder import ChatPacer
from bot.telegram.sender import TelegramSender, send_payload
from bot.telegram.translate import STOPPED_GENERATION, stopped_draft

logger = logging.getLogger(__name__)
WEBHOOK_PATH = "/telegram/webhook"
# stopped_message_generation: Telegram's stop button on a draft (Bot API 10.3)
UPDATES = ["message", "callback_query", STOPPED_GENERATION]
# run by the core (/delete: the core's own name of /deldoc, as its help text says)
CORE_COMMANDS = [
    "help",
    "forms",
    "docs",
    "deldoc",
    "delete",
    "addform",
    "delform",
    "stats",
    "jobs",
    "upload",
    "memory",
    "gaps",
    "bot",  # hands a chat with a person back to the bot
]


class PollerTakenError(ConfigurationError):
    """Another process already polls Telegram with this token."""


class TelegramAdapter:
    """Runs ragbot in Telegram on top of the serving core."""

    name = "telegram"

    def __init__(self, core: ServingCore, settings: Settings) -> None:
        assert settings.telegram_bot_token is not None
        self._core = core
        self._settings = settings
        self.webhook_url = settings.telegram_webhook_url
        secret = settings.telegram_webhook_secret
        if self.webhook_url and secret is None:
            raise ConfigurationError(
                "TELEGRAM_WEBHOOK_URL is set: TELEGRAM_WEBHOOK_SECRET is required too"
            )
        self._secret = secret.get_secret_value().encode() if secret else b""
        root = settings.telegram_api_base_url.rstrip("/")
        builder = (
            Application.builder()
            .token(settings.telegram_bot_token.get_secret_value())
            .base_url(f"{root}/bot")
            .base_file_url(f"{root}/file/bot")
            .updater(None)  # our poller confirms an update only once the core took it
        )
        self.app = builder.build()
        self.features = TelegramFeatures()  # the newer Bot API methods this bot may use
        self.handlers = TelegramHandlers(core, settings, self.features)
        self.buttons = TelegramButtons(core)
        self._register()
        # one pace per chat for the previews and the outbox's sends
        self.pacer = ChatPacer(settings.telegram_update_interval_s)
        self.renderer = TelegramRenderer(core, self.app.bot, self.pacer)
        self.sender = TelegramSender(core, self.app.bot, self.pacer, self.features)
        self.poller: Poller | None = None
        self._poller_lock: Any = None
        self.routes: list[BaseRoute] = (
            [Route(WEBHOOK_PATH, self._webhook, methods=["POST"])] if self.webhook_url else []
        )

    def _register(self) -> None:
        h, b, app = self.handlers, self.buttons, self.app
        new_only = filters.UpdateType.MESSAGE  # edits of old messages are not new questions
        app.add_handler(CommandHandler("start", h.on_start, filters=new_only))
        app.add_handler(CommandHandler("lang", h.on_lang, filters=new_only))
        app.add_handler(CommandHandler("new", h.on_new, filters=new_only))
        app.add_handler(CommandHandler(CORE_COMMANDS, h.on_command, filters=new_only))
        app.add_handler(MessageHandler(new_only & filters.Document.ALL, h.on_document))
        app.add_handler(MessageHandler(new_only & filters.TEXT & ~filters.COMMAND, h.on_text))
        app.add_handler(
            MessageHandler(new_only & filters.COMMAND & filters.ChatType.PRIVATE, h.on_command)
        )
        app.add_handler(CallbackQueryHandler(b.on_vote, pattern=rf"^{VOTE}:\d+:[01]$"))
        app.add_handler(CallbackQueryHandler(b.on_language_choice, pattern=rf"^{LANG}:"))
        app.add_handler(CallbackQueryHandler(b.on_form_button, pattern=rf"^{FORM}:"))
        app.add_handler(CallbackQueryHandler(b.on_stop, pattern=rf"^{STOP}:"))
        app.add_handler(
            CallbackQueryHandler(b.on_core_button, pattern=rf"^{translate.CORE_BUTTON}:")
        )
        # last: only what no handler above took (Telegram's stop button on a draft)
        app.add_handler(TypeHandler(Update, self._on_stopped_generation))
        app.add_error_handler(self._on_error)

    async def _on_stopped_generation(
        self, update: Update, context: ContextTypes.DEFAULT_TYPE
    ) -> None:
        """Telegram's stop button on a draft (python-telegram-bot keeps the update, which
        it does not know yet, in `api_kwargs`): the turn writing that draft stops."""
        stopped = stopped_draft(update)
        if stopped is not None:
            await self.renderer.stop_draft(*stopped)

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        error = context.error
        kind = type(update).__name__
        if isinstance(error, ShuttingDownError):  # not taken: Telegram delivers it again
            logger.info("telegram %s refused: %s", kind, error)
            return
        logger.error("telegram %s failed: %s", kind, error, exc_info=error)

    async def process(self, update: Update) -> bool:
        """Run one update through the listeners; False when the core did not take it."""
        return await intake.process(self.app, update)

    # --- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """getMe, the renderer and sender, the command menus, then setWebhook or polling."""
        await self.app.initialize()
        bot = self.app.bot
        self._core.register_renderer(translate.PLATFORM, self.renderer.render, file_fetcher(bot))
        self._core.register_sender(translate.PLATFORM, self.sender.channel())
        self._core.register_notifier(translate.PLATFORM, self.notify)
        self._core.handoff.rooms.register(translate.PLATFORM, TelegramCases())
        await self._set_commands()
        await self._set_descriptions()
        if self.webhook_url:
            await bot.set_webhook(
                self.webhook_url,
                secret_token=self._secret.decode(),
                allowed_updates=UPDATES,
            )
            return
        self._poller_lock = await self._core.chat_state.try_exclusive("telegram-poller")
        if self._poller_lock is None:
            raise PollerTakenError(
                "another ragbot process is already polling Telegram with this token;"
                " Telegram allows one poller per token: run one, or set"
                " TELEGRAM_WEBHOOK_URL and TELEGRAM_WEBHOOK_SECRET for several workers"
            )
        await bot.delete_webhook()  # getUpdates is refused while a webhook is set
        self.poller = Poller(bot, self.process, UPDATES)
        self.poller.start()

    async def stop(self) -> None:
        """Stop fetching updates, at once; the core's drain follows (the lifecycle's).

        What was not confirmed to Telegram is delivered again to the next
        worker. A webhook stays registered for the other workers; meanwhile
        this one answers 503, so Telegram delivers again. The bot stays usable:
        the turns still draining render with it and the outbox sends with it,
        until `close()`.
        """
        try:
            if self.poller is not None:
                await self.poller.stop()
                self.poller = None
        finally:
            if self._poller_lock is not None:
                await self._poller_lock.close()
                self._poller_lock = None

    async def close(self) -> None:
        """Release the bot's HTTP connections (after the drain and the outbox stopped)."""
        await self.stop()
        await self.handlers.close()
        await self.app.shutdown()

    async def _set_commands(self) -> None:
        """The menus: citizens' commands for everyone, admin commands in admins' chats."""
        bot = self.app.bot
        for language, commands in public_commands().items():
            code = None if language == "en" else language
            menu = [BotCommand(c, d) for c, d in commands]
            await bot.set_my_commands(menu, scope=BotCommandScopeDefault(), language_code=code)
        for admin in sorted(self._settings.admin_ids(translate.PLATFORM)):
            if not admin.lstrip("-").isdigit():
                logger.warning("TELEGRAM_ADMIN_USER_IDS: %r is not a numeric user id", admin)
                continue
            for language, commands in admin_commands().items():
                code = None if language == "en" else language
                menu = [BotCommand(c, d) for c, d in public_commands()[language] + commands]
                try:
                    await bot.set_my_commands(
                        menu, scope=BotCommandScopeChat(int(admin)), language_code=code
                    )
                except TelegramError as exc:  # the admin never opened a chat with the bot
                    logger.warning("admin menu for %s not set: %s", admin, exc)

    async def _set_descriptions(self) -> None:
        """The bot's description (empty chat) and short description (profile), per language."""
        bot = self.app.bot
        for code, (description, short) in descriptions().items():
            if not self.features.allows(DESCRIPTIONS):
                return
            try:
                await bot.set_my_description(description, language_code=code)
                await bot.set_my_short_description(short, language_code=code)
            except TelegramError as exc:
                self.features.failed(DESCRIPTIONS, exc)

    # --- webhook -------------------------------------------------------------------

    async def _webhook(self, request: Request) -> Response:
        """Check the secret, process the update, then answer: 200 only once it was taken."""
        given = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "").encode()
        if not hmac.compare_digest(given, self._secret):
            return Response("wrong secret token", status_code=401)
        if self._core.closing:  # Telegram retries: another worker will take it
            return Response("shutting down", status_code=503)
        try:
            data = await request.json()
        except ValueError:
            return Response("not JSON", status_code=400)
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            return Response("not an update", status_code=400)
        if not await on_core_loop(self._process_json(data)):
            return Response("not taken, deliver again", status_code=503)
        return Response(status_code=200)

    async def _process_json(self, data: dict[str, Any]) -> bool:
        return await self.process(Update.de_json(data, self.app.bot))

    # --- upload results ----------------------------------------------------------------

    async def notify(self, outcome: UploadOutcome) -> None:
        """Tell the admin, in their private chat, what the ingestion job did (outbox).

        Never the chat the file came from: a held notice names personal data
        (masked) and has buttons, and a group must see neither. A Telegram user's
        private chat has their user id.
        """
        chat_id = translate.chat_of(outcome.user_id)
        if chat_id is None or chat_id <= 0:  # not a user: groups have negative ids
            logger.warning("upload %s: no private chat for its uploader", outcome.upload_id)
            return
        payload = send_payload(
            chat_id,
            escape(outcome.text),
            core_keyboard(outcome.buttons),  # a held upload: publish / cancel
        )
        key = f"upload:{outcome.upload_id}:{outcome.status}"
        await self._core.outbox.enqueue(translate.PLATFORM, str(chat_id), key, payload)
