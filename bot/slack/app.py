"""The Slack adapter: a bolt AsyncApp whose listeners translate and hand messages to the core.

HTTP mode serves events, interactivity and the slash command on
`POST /slack/events` (signatures checked with SLACK_SIGNING_SECRET: a bad or
stale one gets 401 and nothing runs); Socket Mode (SLACK_APP_TOKEN) needs no
public URL. Listeners ask only for what they use.

Nothing is acknowledged before it is safe: bolt runs with
`process_before_response`, so Slack gets its 200 (Socket Mode: its ack) only
after the listener returned, and a message listener returns once the core has
accepted the message into the inbox (`ServingCore.accept`, quick: the turn runs
in the background from there). The ack waits for no Slack call: a sender or
channel the adapter has no facts on yet is stored with a pending audience and
looked up before the turn (`_resolve`, the core's resolver for Slack). When
accepting fails (a drain, Postgres down) the listener raises, bolt answers 500
(Socket Mode: no ack) and Slack redelivers to a live worker. While draining,
`/slack/events` answers Events API callbacks with 503 at once; slash commands
and button presses, which Slack never sends again, are still taken (a command
waits in the inbox for the next worker). The answer is rendered by
`SlackResponder` (registered with the core); final messages, replies and upload
results go out through the core's outbox (`SlackSender`), paced per channel and
retried off the turn. Button presses are `SlackButtons`'; the agent experience
(greeting, viewed channel) `AgentView`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import aiohttp
from slack_bolt.adapter.starlette.async_handler import AsyncSlackRequestHandler
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from bot.core.delivery.inbox import Delivery
from bot.core.delivery.loops import on_core_loop
from bot.core.delivery.outbox import Channel
from bot.core.messages import Audience, InboundMessage, Outbound, UploadOutcome
from bot.core.serving import ServingCore, ShuttingDownError
from bot.settings import ConfigurationError, Settings
from bot.slack import translate
from bot.slack.agent import AgentView, viewed_channel
from bot.slack.audience import SlackAudiences
from bot.slack.buttons import SlackButtons
from bot.slack.cases import SlackCases
from bot.slack.features import SlackFeatures
from bot.slack.render import (
    FEEDBACK,
    HELPFUL,
    KEEP_PRIVATE,
    NOT_HELPFUL,
    SHARE,
    STOP,
    SUGGESTION,
    core_buttons_block,
    escape,
)
from bot.slack.responder import SlackResponder
from bot.slack.sender import CHANNEL_GAP_S, SlackSender

logger = logging.getLogger(__name__)
BUTTONS_GRACE_S = 5.0  # on stop, button presses under way get this long to finish


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
        self._token = settings.slack_bot_token.get_secret_value()
        # no rate-limit retry handler: it would sleep inside the turn, holding its slot;
        # 429s on final sends are the outbox's, on previews they skip the preview
        self.client = AsyncWebClient(
            token=self._token, base_url=api_base_url(settings.slack_api_base_url)
        )
        settings.channel_collections(translate.PLATFORM)  # a malformed entry stops start-up
        self.audiences = SlackAudiences(self.client, settings.slack_user_cache_s)
        self.features = SlackFeatures()  # the agent features this workspace takes
        self.agent = AgentView(core, self.client, self.audiences, self.features, self._enqueue)
        self.buttons = SlackButtons(
            core, self.audiences, self._enqueue, self._accept, self._download
        )
        secret = settings.slack_signing_secret
        self.socket_mode = settings.slack_app_token is not None
        if not self.socket_mode and secret is None:
            raise ConfigurationError(
                "Slack HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN)"
            )
        self.app = AsyncApp(
            # bolt's own calls (auth.test at the first request) run on the HTTP thread's
            # loop in HTTP mode: a client without a session bound to a loop, unlike
            # `self.client` (used from the core's loop only)
            client=AsyncWebClient(
                token=self._token, base_url=api_base_url(settings.slack_api_base_url)
            ),
            signing_secret=secret.get_secret_value() if secret else "socket-mode",
            # ack after the listener: a message is in the inbox before Slack hears "got it"
            process_before_response=True,
            request_verification_enabled=not self.socket_mode,
        )
        self._register()
        self._socket: Any = None
        self._buttons: set[asyncio.Task[None]] = set()  # presses being handled
        handler = AsyncSlackRequestHandler(self.app)

        async def events(request: Request) -> Response:
            if self._core.closing and not _sent_once(request):
                return Response("draining", status_code=503)  # Slack retries a live worker
            return await handler.handle(request)

        self.routes: list[BaseRoute] = (
            [] if self.socket_mode else [Route("/slack/events", events, methods=["POST"])]
        )

    async def start(self) -> None:
        """Register with the core, check the app's scopes, then connect Socket Mode.

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
        self._core.register_notifier(translate.PLATFORM, self.notify)
        self._core.register_renderer(translate.PLATFORM, self._render, self._download)
        self._core.register_audience_resolver(translate.PLATFORM, self._resolve)
        sender = SlackSender(
            self.client, self._form_file, self._core.handoff.rooms.card_ref, self.features
        )
        self._core.handoff.rooms.register(translate.PLATFORM, SlackCases())
        self._core.register_sender(translate.PLATFORM, Channel(sender.send, _channel_gap))
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
        if self._buttons:
            await asyncio.wait(list(self._buttons), timeout=BUTTONS_GRACE_S)

    async def close(self) -> None:
        """Let presses taken during the drain finish (their replies wait in the outbox for
        the next worker when this one's has stopped), then close the Web API session."""
        if self._buttons:
            await asyncio.wait(list(self._buttons), timeout=BUTTONS_GRACE_S)
        if self.client.session is not None:
            await self.client.session.close()  # a later call opens its own again

    # --- listeners ---------------------------------------------------------------

    def _register(self) -> None:
        app = self.app
        app.event("app_mention")(self._on_mention)
        app.event("message")(self._on_message)
        app.command("/ragbot")(self._on_command)
        app.action(HELPFUL)(self._on_vote)
        app.action(NOT_HELPFUL)(self._on_vote)
        app.action(FEEDBACK)(self._on_vote)
        app.action(re.compile(r"ragbot_form_\d+"))(self._on_link)
        app.action(translate.CORE_ACTION)(self._on_core_button)
        app.action(STOP)(self._on_stop)
        app.action(SHARE)(self._on_share)
        app.action(KEEP_PRIVATE)(self._on_share)
        app.action(re.compile(rf"^{SUGGESTION}_\d+$"))(self._on_suggestion)
        app.event("app_home_opened")(self._on_home_opened)
        app.event("app_context_changed")(self._on_context_changed)
        app.error(self._on_error)

    # Listeners run on the HTTP loop; the core's work runs on the core's loop. A listener
    # that raises makes bolt answer 500 (Socket Mode: no ack), and Slack delivers again.

    async def _on_mention(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        if not translate.is_ignorable(event, context.bot_user_id):
            await on_core_loop(self._accept(event, context.bot_user_id, context.team_id))

    async def _on_message(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        await on_core_loop(self._message(event, context.bot_user_id, context.team_id))

    async def _on_command(self, ack: AsyncAck, command: dict[str, Any]) -> None:
        await on_core_loop(self._command(command))
        await ack()  # only now: accepted (a failure above is a 500, Slack shows an error)

    async def _on_vote(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()  # Slack does not redeliver clicks; the vote is handled in the background
        await on_core_loop(self._in_background(self.buttons.vote(body)))

    async def _on_core_button(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        await on_core_loop(self._in_background(self.buttons.core_button(body)))

    async def _on_stop(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        await on_core_loop(self._in_background(self.buttons.stop(body)))

    async def _on_share(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        await on_core_loop(self._in_background(self.buttons.share(body)))

    async def _on_suggestion(
        self, ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        work = self.buttons.ask_suggested(body, context.bot_user_id, context.team_id)
        await on_core_loop(self._in_background(work))

    async def _on_home_opened(
        self, event: dict[str, Any], body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        if event.get("tab") == "messages":  # the DM: greet (in the background, after the ack)
            event_id = str(body.get("event_id") or event.get("event_ts") or uuid.uuid4().hex)
            greeting = self.agent.greet(event, context.team_id, event_id)
            await on_core_loop(self._in_background(greeting))

    async def _on_context_changed(self, event: dict[str, Any]) -> None:
        await on_core_loop(self.agent.context_changed(event))

    async def _on_link(self, ack: AsyncAck) -> None:
        await ack()  # link buttons open their URL in Slack; nothing to do here

    async def _on_error(self, error: Exception, body: dict[str, Any]) -> None:
        # returning nothing keeps bolt's 500: Slack redelivers what was not accepted
        if isinstance(error, ShuttingDownError):
            logger.info("slack %s refused while draining: redelivered", body.get("type"))
            return
        logger.error("slack listener failed (%s): %s", body.get("type"), error, exc_info=error)

    async def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run a button's work on this (the core's) loop after the ack, kept until done."""
        task = asyncio.create_task(work)
        self._buttons.add(task)
        task.add_done_callback(self._buttons.discard)
        task.add_done_callback(_log_failure)

    # --- on the core's loop: accepting ---------------------------------------------

    async def _message(self, event: dict[str, Any], bot: str | None, team: str | None) -> None:
        if translate.is_ignorable(event, bot) or event.get("subtype") not in (None, "file_share"):
            return
        if event.get("channel_type") == "im" or translate.mentions(event, bot):
            await self._accept(event, bot, team)  # a mention's twin event: the inbox dedupes
            return
        thread = event.get("thread_ts")
        key = translate.conversation_key(event["channel"], thread or "")
        with self._core.acknowledging():  # this read is part of the ack's wait too
            if thread and await self._core.has_conversation(translate.PLATFORM, key):
                await self._accept(event, bot, team)

    async def _accept(self, event: dict[str, Any], bot: str | None, team: str | None) -> None:
        """Translate (with the audience) and put the message in the inbox; raises if refused.

        Slack waits for the ack meanwhile: deliveries already started wait too
        (`ServingCore.acknowledging`)."""
        with self._core.acknowledging():
            await self._accept_now(event, bot, team)

    async def _accept_now(self, event: dict[str, Any], bot: str | None, team: str | None) -> None:
        # outside a DM everyone in the channel reads the answer: the channel's facts count
        # too; in a DM the channel the user views (agent experience) gives its collections
        in_dm = event.get("channel_type") == "im"
        where = event.get("channel")
        user = event.get("user")
        if in_dm and user:
            where = (
                viewed_channel(event.get("app_context")) or await self.agent.viewed(user) or where
            )
        # from what is remembered: a sender or channel not seen yet is looked up after the
        # ack (the core has `_resolve` learn it before the turn), not while Slack waits
        audience = self.audiences.known(
            user, translate.user_team(event), where, in_channel=not in_dm
        )
        inbound = translate.inbound_message(event, bot, self._download, audience, team)
        await self._core.accept(inbound)  # False: a duplicate, already answered or under way

    async def _resolve(self, message: InboundMessage) -> Audience:
        """A pending audience (the core's resolver for Slack): the sender's and channel's
        facts looked up now, before the turn reads them."""
        return await self.audiences.resolve(message.audience, message.user_id)

    async def _command(self, command: dict[str, Any]) -> None:
        # a private question's answer may be shared in the channel: it reads what the
        # channel's readers may read, not more
        audience = self.audiences.known(  # learned after the ack when not remembered
            command.get("user_id"),
            translate.user_team(command),
            command.get("channel_id"),
            in_channel=translate.is_private_question(command),
        )
        # Slack never sends a slash command again: while draining it waits in the inbox
        await self._core.accept(translate.slash_command(command, audience), redelivered=False)

    # --- on the core's loop: rendering ----------------------------------------------

    async def _render(self, delivery: Delivery, events: AsyncIterator[Outbound]) -> None:
        """Show one delivery's events (the core's renderer for Slack)."""
        responder = SlackResponder(
            self.client,
            delivery,
            self._enqueue,
            streaming=self._settings.slack_streaming,
            interval_s=self._settings.slack_update_interval_s,
            features=self.features,
        )
        async for event in events:
            await responder.render(event)

    async def _enqueue(
        self, chat: str, key: str, payload: dict[str, Any], trace_id: str | None = None
    ) -> bool:
        return await self._core.outbox.enqueue(translate.PLATFORM, chat, key, payload, trace_id)

    async def _form_file(self, name: str, audience: Audience) -> Any:
        return await self._core.form_file(translate.PLATFORM, name, audience)

    # --- files and upload results -------------------------------------------------------

    async def _download(self, url: str) -> bytes:
        """A shared file's bytes (the bot's bearer token; never more than MAX_FILE_MB)."""
        limit = self._settings.max_file_bytes
        headers = {"Authorization": f"Bearer {self._token}"}
        data = bytearray()
        async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as resp:
            resp.raise_for_status()
            async for piece in resp.content.iter_chunked(64 * 1024):
                data += piece
                if len(data) > limit:  # the reported size was wrong: stop reading
                    raise ValueError("the file is over the size limit")
        return bytes(data)

    async def notify(self, outcome: UploadOutcome) -> None:
        """Tell the admin, in the upload's thread, what the ingestion job did (via the outbox)."""
        channel, thread_ts = translate.split_key(outcome.conversation_key or "")
        if channel:
            text = escape(outcome.text)
            buttons = core_buttons_block(outcome.buttons)  # a held upload: publish / cancel
            blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]
            payload: dict[str, Any] = {"op": "post", "channel": channel}
            payload |= {"thread_ts": thread_ts or None}
            payload |= {"text": text, "blocks": [*blocks, buttons] if buttons else None}
            key = f"slack:upload:{outcome.upload_id}:{outcome.status}"
            await self._enqueue(channel, key, payload)


def _sent_once(request: Request) -> bool:
    """A slash command or a button press (form-encoded): Slack never delivers these again,
    unlike Events API callbacks (JSON), so a draining worker still takes them."""
    kind = request.headers.get("content-type", "")
    return kind.startswith("application/x-www-form-urlencoded")


def _channel_gap(channel: str) -> float:
    """Least time between two outbox sends to one channel."""
    del channel
    return CHANNEL_GAP_S


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("slack button failed", exc_info=task.exception())
