"""The Slack adapter: builds the bolt AsyncApp and its parts and plugs them into the core.

HTTP mode serves events, interactivity and the slash command on
`POST /slack/events` (signatures checked with SLACK_SIGNING_SECRET: a bad or
stale one gets 401 and nothing runs); Socket Mode (SLACK_APP_TOKEN) needs no
public URL. Slack hears "got it" only once the core has the message
(`bot.slack.listeners`); deliveries are shown by `bot.slack.render`; sends go
through the core's outbox (`bot.slack.delivery`), paced per channel and retried
off the turn.
"""

from __future__ import annotations

import functools
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient
from starlette.routing import BaseRoute

from bot.core.platform import Platform
from bot.core.serving import ServingCore
from bot.settings import ConfigurationError, Settings
from bot.slack import translate
from bot.slack.agent import AgentView
from bot.slack.audience import SlackAudiences
from bot.slack.buttons import SlackButtons
from bot.slack.delivery import SlackSender
from bot.slack.features import SlackFeatures
from bot.slack.files import file_fetcher
from bot.slack.listeners import SlackListeners
from bot.slack.render import SlackRenderer


def api_base_url(url: str) -> str:
    """SLACK_API_BASE_URL with exactly one trailing slash (slack-sdk joins method names)."""
    return url.rstrip("/") + "/"


class SlackAdapter:
    """Runs ragbot in Slack on top of the serving core."""

    name = "slack"

    def __init__(self, core: ServingCore, settings: Settings) -> None:
        assert settings.slack_bot_token is not None
        self._core = core
        self._settings = settings
        token = settings.slack_bot_token.get_secret_value()
        # no rate-limit retry handler: it would sleep inside the turn, holding its slot;
        # 429s on final sends are the outbox's, on previews they skip the preview
        self.client = AsyncWebClient(
            token=token, base_url=api_base_url(settings.slack_api_base_url)
        )
        settings.channel_collections(translate.PLATFORM)  # a malformed entry stops start-up
        secret = settings.slack_signing_secret
        self.socket_mode = settings.slack_app_token is not None
        if not self.socket_mode and secret is None:
            raise ConfigurationError(
                "Slack HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN)"
            )
        self.fetch_file = file_fetcher(token, settings.max_file_bytes)
        self.audiences = SlackAudiences(self.client, settings.slack_user_cache_s)
        self.features = SlackFeatures()  # the agent features this workspace takes
        self.agent = AgentView(core, self.client, self.audiences, self.features, self._enqueue)
        self.listeners = SlackListeners(core, self.audiences, self.agent, self.fetch_file)
        self.buttons = SlackButtons(
            core, self.audiences, self._enqueue, self.listeners.accept, self.fetch_file
        )
        self.renderer = SlackRenderer(self.client, self._enqueue, settings, self.features)
        form_file = functools.partial(core.form_file, translate.PLATFORM)
        self.sender = SlackSender(self.client, form_file, core.card_ref, self.features)
        self.app = AsyncApp(
            # bolt's own calls (auth.test at the first request) run on the HTTP thread's
            # loop in HTTP mode: a client without a session bound to a loop, unlike
            # `self.client` (used from the core's loop only)
            client=AsyncWebClient(token=token, base_url=api_base_url(settings.slack_api_base_url)),
            signing_secret=secret.get_secret_value() if secret else "socket-mode",
            # ack after the listener: a message is in the inbox before Slack hears "got it"
            process_before_response=True,
            request_verification_enabled=not self.socket_mode,
        )
        self.listeners.listen(self.app, self.buttons)
        self._socket: Any = None
        self.routes: list[BaseRoute] = (
            []
            if self.socket_mode or secret is None
            else [self.listeners.route(self.app, secret.get_secret_value())]
        )

    async def start(self) -> None:
        """Plug into the core, check the app's scopes, then connect Socket Mode.

        (HTTP mode: the routes are served by the caller.)
        """
        # One HTTP session for every Web API call from the core's loop (this one): without
        # it slack-sdk opens a session, and a connection (TLS included), per call, and the
        # ack of a new user's first message waited for two of them.
        # (the Web API is token-based: no cookies kept between calls)
        self.client.session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=self.client.timeout),
            cookie_jar=aiohttp.DummyCookieJar(),
        )
        try:
            await self._start()
        except BaseException:
            await self.client.session.close()
            raise

    async def _start(self) -> None:
        # (hand-off cards are the runtime's: a case may be shown in another platform's room)
        self._core.plug(
            Platform(
                name=translate.PLATFORM,
                render=self.renderer.render,
                channel=self.sender.channel(),
                fetch_file=self.fetch_file,
                notify=self.renderer.notify,
                resolve_audience=self.listeners.resolve,
            )
        )
        await self.audiences.check_access()  # a missing users:read is one clear ERROR, not a stop
        if self.socket_mode:
            from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

            assert self._settings.slack_app_token is not None
            app_token = self._settings.slack_app_token.get_secret_value()
            self._socket = AsyncSocketModeHandler(self.app, app_token)
            await self._socket.connect_async()

    async def stop(self) -> None:
        """Disconnect Socket Mode first (Slack keeps what is unacknowledged), then let
        button presses under way finish."""
        if self._socket is not None:
            await self._socket.close_async()
        await self.listeners.settle()

    async def close(self) -> None:
        """Let presses taken during the drain finish (their replies wait in the outbox for
        the next worker when this one's has stopped), then close the Web API session."""
        await self.listeners.settle()
        if self.client.session is not None:
            await self.client.session.close()  # a later call opens its own again

    async def _enqueue(
        self, chat: str, key: str, payload: dict[str, Any], trace_id: str | None = None
    ) -> bool:
        return await self._core.enqueue(translate.PLATFORM, chat, key, payload, trace_id)
