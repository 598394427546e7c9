"""The bolt listeners: each parses what Slack sent and hands it to the core.

Listeners run on the HTTP loop; the core's work runs on the core's loop. A
message listener returns once the core has accepted the message into the inbox
(`ServingCore.accept`, quick: the turn runs in the background from there), so
Slack's ack (bolt's `process_before_response`) never comes before it is safe.
The ack waits for no Slack call: a sender or channel not known yet is stored
with a pending audience and looked up before the turn (`resolve`, the core's
resolver for Slack). A listener that raises makes bolt answer 500 (Socket Mode:
no ack), and Slack delivers again. Button presses are acknowledged at once
(Slack never sends them again) and handled in the background by `SlackButtons`.
`/slack/events` checks Slack's signature on the raw bytes first: an unsigned or
stale request is a 401, nothing of it parsed (bolt parses a body before checking).
While draining, `/slack/events` answers Events API callbacks with 503 at once;
slash commands and button presses, which Slack never sends again, are still
taken (a command waits in the inbox for the next worker).
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Coroutine
from typing import Any

from slack_bolt.adapter.starlette.async_handler import AsyncSlackRequestHandler
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext
from slack_sdk.signature import SignatureVerifier
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bot.core.messages import Audience, InboundMessage
from bot.core.platform import FileFetcher
from bot.core.serving import Accepted, ServingCore, ShuttingDownError
from bot.slack import translate
from bot.slack.agent import AgentView, viewed_channel
from bot.slack.audience import SlackAudiences
from bot.slack.blocks import (
    FEEDBACK,
    HELPFUL,
    KEEP_PRIVATE,
    NOT_HELPFUL,
    SHARE,
    STOP,
)
from bot.slack.buttons import SlackButtons
from bot.slack.question_blocks import SUGGESTION

logger = logging.getLogger(__name__)
BUTTONS_GRACE_S = 5.0  # on stop, button presses under way get this long to finish


class SlackListeners:
    """Slack's events, slash command and button presses, handed to the core."""

    buttons: SlackButtons  # what presses do (set by `listen`: the buttons accept through us)

    def __init__(
        self,
        core: ServingCore,
        audiences: SlackAudiences,
        agent: AgentView,
        fetch_file: FileFetcher,
    ) -> None:
        self._core = core
        self.audiences = audiences  # what is remembered of senders and channels
        self.agent = agent
        self._download = fetch_file
        self._presses: set[asyncio.Task[None]] = set()  # presses being handled

    def listen(self, app: AsyncApp, buttons: SlackButtons) -> None:
        """Register the listeners on `app`; button presses go to `buttons`."""
        self.buttons = buttons
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

    def route(self, app: AsyncApp, signing_secret: str) -> Route:
        """`POST /slack/events` (HTTP mode) for `app`: 401 unless signed with
        `signing_secret` (checked before anything is parsed), and refusing redeliverable
        callbacks while draining."""
        handler = AsyncSlackRequestHandler(app)
        verifier = SignatureVerifier(signing_secret)

        async def events(request: Request) -> Response:
            body = await request.body()  # whole and capped already (WebhookBodyCap)
            if not _signed(verifier, body, request):
                return Response("invalid signature", status_code=401)
            if self._core.closing and not _sent_once(request):
                return Response("draining", status_code=503)  # Slack retries a live worker
            return await handler.handle(request)

        return Route("/slack/events", events, methods=["POST"])

    async def settle(self) -> bool:
        """Let the button presses under way finish (at most BUTTONS_GRACE_S); False when
        some were still running then."""
        if not self._presses:
            return True
        _, running = await asyncio.wait(list(self._presses), timeout=BUTTONS_GRACE_S)
        return not running

    # Listeners run on the HTTP loop; the core's work runs on the core's loop. A listener
    # that raises makes bolt answer 500 (Socket Mode: no ack), and Slack delivers again.

    async def _on_mention(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        if not translate.is_ignorable(event, context.bot_user_id):
            await self.accept(event, context.bot_user_id, context.team_id)

    async def _on_message(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        await self._message(event, context.bot_user_id, context.team_id)

    async def _on_command(self, ack: AsyncAck, command: dict[str, Any]) -> None:
        await self._command(command)
        await ack()  # only now: accepted (a failure above is a 500, Slack shows an error)

    async def _on_vote(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()  # Slack does not redeliver clicks; the vote is handled in the background
        await self._in_background(self.buttons.vote(body))

    async def _on_core_button(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        await self._in_background(self.buttons.core_button(body))

    async def _on_stop(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        await self._in_background(self.buttons.stop(body))

    async def _on_share(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        await self._in_background(self.buttons.share(body))

    async def _on_suggestion(
        self, ack: AsyncAck, body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        await ack()
        work = self.buttons.ask_suggested(body, context.bot_user_id, context.team_id)
        await self._in_background(work)

    async def _on_home_opened(
        self, event: dict[str, Any], body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        if event.get("tab") == "messages":  # the DM: greet (in the background, after the ack)
            event_id = str(body.get("event_id") or event.get("event_ts") or uuid.uuid4().hex)
            greeting = self.agent.greet(event, context.team_id, event_id)
            await self._in_background(greeting)

    async def _on_context_changed(self, event: dict[str, Any]) -> None:
        await self.agent.context_changed(event)

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
        self._presses.add(task)
        task.add_done_callback(self._presses.discard)
        task.add_done_callback(_log_failure)

    # --- on the core's loop: accepting ---------------------------------------------

    async def _message(self, event: dict[str, Any], bot: str | None, team: str | None) -> None:
        if translate.is_ignorable(event, bot) or event.get("subtype") not in (None, "file_share"):
            return
        # a group DM is started to talk with the bot: every message in it is for the bot
        if event.get("channel_type") in ("im", "mpim") or translate.mentions(event, bot):
            await self.accept(event, bot, team)  # a mention's twin event: the inbox dedupes
            return
        thread = event.get("thread_ts")
        key = translate.conversation_key(event["channel"], thread or "")
        with self._core.acknowledging():  # this read is part of the ack's wait too
            if thread and await self._core.has_conversation(translate.PLATFORM, key):
                await self.accept(event, bot, team)

    async def accept(
        self, event: dict[str, Any], bot: str | None, team: str | None, redelivered: bool = True
    ) -> Accepted:
        """Translate (with the audience) and put the message in the inbox; raises if refused.

        Slack waits for the ack meanwhile: deliveries already started wait too
        (`ServingCore.acknowledging`)."""
        with self._core.acknowledging():
            return await self._accept_now(event, bot, team, redelivered)

    async def _accept_now(
        self, event: dict[str, Any], bot: str | None, team: str | None, redelivered: bool
    ) -> Accepted:
        # outside a DM everyone in the channel reads the answer: the channel's facts count
        # too (a group DM's as well: its members may be guests or outsiders); in a DM the
        # channel the user views (agent experience) gives its collections
        in_dm = event.get("channel_type") == "im"
        where = event.get("channel")
        user = event.get("user")
        if in_dm and user:
            where = (
                viewed_channel(event.get("app_context")) or await self.agent.viewed(user) or where
            )
        # from what is remembered: a sender or channel not seen yet is looked up after the
        # ack (the core has `resolve` learn it before the turn), not while Slack waits
        audience = self.audiences.known(
            user, translate.user_team(event), where, in_channel=not in_dm
        )
        inbound = translate.inbound_message(event, bot, self._download, audience, team)
        # False: a duplicate, already answered or under way; a press (`redelivered=False`,
        # never sent again) is parked for the next worker while this one drains
        return await self._core.accept(inbound, redelivered=redelivered)

    async def resolve(self, message: InboundMessage) -> Audience:
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


def _signed(verifier: SignatureVerifier, body: bytes, request: Request) -> bool:
    """Slack's signature of `body` (an HMAC of `v0:timestamp:body`), its timestamp within
    5 minutes (older: a replay); garbage in either header is simply unsigned."""
    try:
        return verifier.is_valid(
            body,
            request.headers.get("x-slack-request-timestamp"),
            request.headers.get("x-slack-signature"),
        )
    except (ValueError, TypeError):  # a timestamp not a number, a body not UTF-8
        return False


def _sent_once(request: Request) -> bool:
    """A slash command or a button press (form-encoded): Slack never delivers these again,
    unlike Events API callbacks (JSON), so a draining worker still takes them."""
    kind = request.headers.get("content-type", "")
    return kind.startswith("application/x-www-form-urlencoded")


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("slack button failed", exc_info=task.exception())
