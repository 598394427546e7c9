"""The Slack adapter: a bolt AsyncApp whose listeners translate, call the core, and render.

HTTP mode serves events, interactivity and the slash command on
`POST /slack/events` (signatures checked with SLACK_SIGNING_SECRET: a bad or
stale one gets 401 and nothing runs); Socket Mode (SLACK_APP_TOKEN) needs no
public URL. Listeners ack at once and answer after (`process_before_response`
off), and ask only for what they use.
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import Any

import aiohttp
from slack_bolt.adapter.starlette.async_handler import AsyncSlackRequestHandler
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext, AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from bot.core.dispatcher import ServingCore
from bot.core.loops import on_core_loop
from bot.core.messages import Audience, InboundMessage, Progress, Token, UploadOutcome
from bot.settings import ConfigurationError, Settings
from bot.slack import translate
from bot.slack.audience import SlackAudiences
from bot.slack.render import HELPFUL, NOT_HELPFUL, core_buttons_block, escape, feedback_taken
from bot.slack.responder import SlackResponder
from textkit.catalog import say

logger = logging.getLogger(__name__)


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
        self.client = AsyncWebClient(
            token=self._token,
            base_url=api_base_url(settings.slack_api_base_url),
            retry_handlers=[AsyncRateLimitErrorRetryHandler(max_retry_count=3)],
        )
        settings.channel_collections(translate.PLATFORM)  # a malformed entry stops start-up
        self.audiences = SlackAudiences(self.client, settings.slack_user_cache_s)
        secret = settings.slack_signing_secret
        self.socket_mode = settings.slack_app_token is not None
        if not self.socket_mode and secret is None:
            raise ConfigurationError(
                "Slack HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN)"
            )
        self.app = AsyncApp(
            client=self.client,
            signing_secret=secret.get_secret_value() if secret else "socket-mode",
            process_before_response=False,
            request_verification_enabled=not self.socket_mode,
        )
        self._register()
        self._socket: Any = None
        handler = AsyncSlackRequestHandler(self.app)

        async def events(request: Request) -> Response:
            return await handler.handle(request)

        self.routes: list[BaseRoute] = (
            [] if self.socket_mode else [Route("/slack/events", events, methods=["POST"])]
        )

    async def start(self) -> None:
        """Check the app's scopes, then connect Socket Mode (HTTP mode: the routes are served)."""
        self._core.register_notifier(translate.PLATFORM, self.notify)
        await self.audiences.check_access()  # a missing users:read is one clear ERROR, not a stop
        if self.socket_mode:
            from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

            assert self._settings.slack_app_token is not None
            app_token = self._settings.slack_app_token.get_secret_value()
            self._socket = AsyncSocketModeHandler(self.app, app_token)
            await self._socket.connect_async()

    async def stop(self) -> None:
        """Disconnect Socket Mode."""
        if self._socket is not None:
            await self._socket.close_async()

    # --- listeners ---------------------------------------------------------------

    def _register(self) -> None:
        app = self.app
        app.event("app_mention")(self._on_mention)
        app.event("message")(self._on_message)
        app.command("/ragbot")(self._on_command)
        app.action(HELPFUL)(self._on_vote)
        app.action(NOT_HELPFUL)(self._on_vote)
        app.action(re.compile(r"ragbot_form_\d+"))(self._on_link)
        app.action(translate.CORE_ACTION)(self._on_core_button)
        app.error(self._on_error)

    # Listeners run on the HTTP loop: they ack there, and hand the work to the core's loop.

    async def _on_mention(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        if not translate.is_ignorable(event, context.bot_user_id):
            await on_core_loop(self._answer(event, context.bot_user_id, context.team_id))

    async def _on_message(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        await on_core_loop(self._message(event, context.bot_user_id, context.team_id))

    async def _on_command(
        self, ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond
    ) -> None:
        await ack()
        await on_core_loop(self._command(command, respond))

    async def _on_vote(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        await on_core_loop(self._vote(body))

    async def _on_core_button(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        await on_core_loop(self._core_button(body))

    async def _on_link(self, ack: AsyncAck) -> None:
        await ack()  # link buttons open their URL in Slack; nothing to do here

    async def _on_error(self, error: Exception, body: dict[str, Any]) -> None:
        logger.error("slack listener failed (%s): %s", body.get("type"), error, exc_info=error)

    # --- on the core's loop -------------------------------------------------------

    async def _message(self, event: dict[str, Any], bot: str | None, team: str | None) -> None:
        if translate.is_ignorable(event, bot) or event.get("subtype") not in (None, "file_share"):
            return
        if event.get("channel_type") == "im" or translate.mentions(event, bot):
            await self._answer(event, bot, team)  # a mention's twin event: the claim dedupes
            return
        thread = event.get("thread_ts")
        key = translate.conversation_key(event["channel"], thread or "")
        if thread and await self._core.has_conversation(translate.PLATFORM, key):
            await self._answer(event, bot, team)

    async def _command(self, command: dict[str, Any], respond: AsyncRespond) -> None:
        audience = await self.audiences.audience(
            command.get("user_id"), translate.user_team(command), command.get("channel_id")
        )
        async for event in self._core.handle(translate.slash_command(command, audience)):
            text = getattr(event, "text", None)
            if text:
                await respond(text=escape(text), response_type="ephemeral")

    async def _vote(self, body: dict[str, Any]) -> None:
        action = body["actions"][0]
        helpful = action["action_id"] == HELPFUL
        user = body["user"]["id"]
        where = translate.vote_origin(body)
        stored = where is not None and await self._core.feedback(
            translate.PLATFORM, user, int(action["value"]), helpful, where
        )
        message = body.get("message") or {}
        if stored and message.get("ts"):
            blocks = feedback_taken(message.get("blocks") or [], user, helpful)
            await self.client.chat_update(
                channel=body["channel"]["id"],
                ts=message["ts"],
                text=message.get("text", " "),
                blocks=blocks,
            )

    async def _core_button(self, body: dict[str, Any]) -> None:
        """An upload offer's or held upload's button: the core checks who pressed it;
        a choice made replaces the buttons with its result, anyone else is told privately."""
        parsed = translate.core_button(body)
        user = (body.get("user") or {}).get("id") or ""
        channel = (body.get("channel") or {}).get("id") or ""
        message = body.get("message") or {}
        action_ts = (body.get("actions") or [{}])[0].get("action_ts") or message.get("ts")
        if parsed is None or not channel:
            return
        if not await self._core.first_delivery(translate.PLATFORM, f"action:{user}:{action_ts}"):
            return
        audience = await self.action_audience(body)
        reply = await self._core.press(
            translate.PLATFORM, user, parsed[0], parsed[1], self._download, audience
        )
        text = escape(reply.text)
        if reply.kind == "not_yours" or reply.data.get("private") or not message.get("ts"):
            await self.client.chat_postEphemeral(channel=channel, user=user, text=text)
            return
        section = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
        await self.client.chat_update(
            channel=channel, ts=message["ts"], text=text, blocks=[section]
        )

    async def action_audience(self, body: dict[str, Any]) -> Audience:
        """The audience of whoever pressed a button (block_actions: user.id, user.team_id)."""
        user = body.get("user") or {}
        channel = (body.get("channel") or {}).get("id")
        return await self.audiences.audience(user.get("id"), translate.user_team(body), channel)

    async def _answer(self, event: dict[str, Any], bot: str | None, team: str | None) -> None:
        # outside a DM everyone in the channel reads the answer: the channel's facts count too
        audience = await self.audiences.audience(
            event.get("user"),
            translate.user_team(event),
            event.get("channel"),
            in_channel=event.get("channel_type") != "im",
        )
        inbound = translate.inbound_message(event, bot, self._download, audience)
        channel, thread_ts = translate.split_key(inbound.conversation_key)
        responder = SlackResponder(
            self.client,
            channel,
            thread_ts,
            inbound.user_id,
            event.get("team") or team,
            streaming=self._settings.slack_streaming,
            interval_s=self._settings.slack_update_interval_s,
        )
        started = False
        try:
            # aclosing: if posting fails, the core releases the claim now, not at GC
            async with contextlib.aclosing(self._core.handle(inbound)) as events:
                async for out in events:
                    if not started and isinstance(out, Progress | Token):
                        started = True  # a turn: show at once that work started
                        await responder.start(out.language if isinstance(out, Progress) else "en")
                    await responder.render(out)
                    await self._send_form_files(inbound, out, channel, thread_ts)
        except SlackApiError as exc:
            logger.error(
                "could not post to %s (thread %s): %s",
                channel,
                thread_ts,
                exc.response.get("error") if exc.response else exc,
            )
            await self._tell_failure(channel, thread_ts)

    async def _send_form_files(
        self, inbound: InboundMessage, out: Any, channel: str, thread_ts: str
    ) -> None:
        for form in getattr(out, "forms", None) or ():
            if not form.get("send_file"):
                continue
            file = await self._core.form_file(inbound.platform, form["name"], inbound.audience)
            if file is not None:
                await self.client.files_upload_v2(
                    channel=channel,
                    thread_ts=thread_ts,
                    content=file.data,
                    filename=file.name,
                    title=form["name"],
                )

    async def _tell_failure(self, channel: str, thread_ts: str) -> None:
        try:
            await self.client.chat_postMessage(
                channel=channel,
                thread_ts=thread_ts,
                text=say("slack:post_failed", "en"),
            )
        except SlackApiError:
            logger.error("could not tell %s about the failure either", channel)

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
        """Tell the admin, in the upload's thread, what the ingestion job did."""
        channel, thread_ts = translate.split_key(outcome.conversation_key or "")
        if channel:
            text = escape(outcome.text)
            buttons = core_buttons_block(outcome.buttons)  # a held upload: publish / cancel
            blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]
            await self.client.chat_postMessage(
                channel=channel,
                thread_ts=thread_ts or None,
                text=text,
                blocks=[*blocks, buttons] if buttons else None,
            )
