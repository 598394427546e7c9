"""The Telegram adapter: python-telegram-bot's Application and its parts, plugged into the core.

Long polling by default (our own loop, `bot.telegram.poller`: the offset moves
past an update only once the core took it). With TELEGRAM_WEBHOOK_URL set,
updates arrive on `POST /telegram/webhook` of the shared ASGI server
(`bot.telegram.intake.Webhook`), and the webhook is registered with setWebhook
at start. Telegram allows one poller per token, so several workers need
webhook mode; a second poller is refused at start (a Postgres advisory lock
says so).

The listeners only translate and accept (`bot.telegram.listeners`); the core
answers in the background through the responder (`bot.telegram.responder`);
final messages and upload results go out through the outbox
(`bot.telegram.delivery`), on one pace per chat shared with the previews.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route
from telegram import Update
from telegram.ext import Application

from bot.core.platform import Platform
from bot.core.serving import ServingCore
from bot.settings import ConfigurationError, Settings
from bot.telegram import intake, listeners, translate
from bot.telegram.buttons import TelegramButtons
from bot.telegram.commands import TelegramCommands
from bot.telegram.delivery import TelegramDelivery
from bot.telegram.features import TelegramFeatures
from bot.telegram.files import file_fetcher
from bot.telegram.listeners import TelegramListeners
from bot.telegram.menus import set_menus
from bot.telegram.pace import ChatPacer
from bot.telegram.poller import Poller
from bot.telegram.responder import TelegramResponder
from bot.telegram.translate import STOPPED_GENERATION

WEBHOOK_PATH = "/telegram/webhook"
# stopped_message_generation: Telegram's stop button on a draft (Bot API 10.3)
UPDATES = ["message", "callback_query", STOPPED_GENERATION]


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
        self.app = (
            Application.builder()
            .token(settings.telegram_bot_token.get_secret_value())
            .base_url(f"{root}/bot")
            .base_file_url(f"{root}/file/bot")
            .updater(None)  # our poller confirms an update only once the core took it
            .build()
        )
        bot = self.app.bot
        self.features = TelegramFeatures()  # the newer Bot API methods this bot may use
        # one pace per chat for the previews and the outbox's sends
        self.pacer = ChatPacer(settings.telegram_update_interval_s)
        self.delivery = TelegramDelivery(core, bot, self.pacer, self.features)
        self.responder = TelegramResponder(core, bot, self.pacer)
        self.listeners = TelegramListeners(core, settings, self.delivery, self.features)
        self.commands = TelegramCommands(core, self.delivery, self.listeners.ask)
        self.buttons = TelegramButtons(core, settings.telegram_drafts)
        listeners.register(
            self.app, self.listeners, self.commands, self.buttons, self.responder.stop_draft
        )
        self.poller: Poller | None = None
        self._poller_lock: Any = None
        webhook = intake.Webhook(core, self.app, self._secret).handle
        self.routes: list[BaseRoute] = (
            [Route(WEBHOOK_PATH, webhook, methods=["POST"])] if self.webhook_url else []
        )

    async def process(self, update: Update) -> bool:
        """Run one update through the listeners; False when the core did not take it."""
        return await intake.process(self.app, update)

    async def start(self) -> None:
        """getMe, plugging into the core, the command menus, then setWebhook or polling."""
        await self.app.initialize()
        bot = self.app.bot
        render, channel, fetch = self.responder.render, self.delivery.channel(), file_fetcher(bot)
        self._core.plug(Platform(translate.PLATFORM, render, channel, fetch, self.delivery.notify))
        await set_menus(bot, self._settings.admin_ids(translate.PLATFORM), self.features)
        if self.webhook_url:
            await bot.set_webhook(
                self.webhook_url,
                secret_token=self._secret.decode(),
                allowed_updates=UPDATES,
            )
            return
        self._poller_lock = await self._core.try_exclusive("telegram-poller")
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
        await self.delivery.close()
        await self.app.shutdown()
