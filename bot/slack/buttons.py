"""Slack's button presses: votes, the core's buttons, Stop, Share, suggested questions.

Each runs on the core's loop after the press was acknowledged (Slack never sends
a press again), once per press (`first_delivery` on the action's timestamp);
quick actions count in the presser's rate limit, Stop does not (an asker over
the limit can still stop their answer). Replies go through the outbox.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from bot.core.messages import Audience, Reply
from bot.core.serving import Accepted, ServingCore
from bot.slack import translate
from bot.slack.agent import language_of
from bot.slack.audience import SlackAudiences
from bot.slack.blocks import (
    HANDOFF_BLOCK,
    SHARE,
    escape,
    feedback_taken,
    private_copy,
    shared_answer,
)
from bot.slack.question_blocks import related_taken
from textkit.catalog import say

logger = logging.getLogger(__name__)
# (chat, key, payload): stores one send in the outbox
Enqueue = Callable[[str, str, dict[str, Any]], Awaitable[bool]]
# (event, bot user, team): a message accepted into the inbox as if the user wrote it
# (event, bot user, team, redelivered): bot.slack.listeners.SlackListeners.accept
Accept = Callable[[dict[str, Any], str | None, str | None, bool], Awaitable[Accepted]]
Fetch = Callable[[str], Awaitable[bytes]]


class SlackButtons:
    """Handles the presses of one Slack app's buttons."""

    def __init__(
        self,
        core: ServingCore,
        audiences: SlackAudiences,
        enqueue: Enqueue,
        accept: Accept,
        fetch: Fetch,
    ) -> None:
        self._core = core
        self.audiences = audiences
        self._enqueue = enqueue
        self._accept = accept
        self._fetch = fetch

    async def admitted(self, body: dict[str, Any], counted: bool = True) -> str | None:
        """The press's delivery id when it should run (once, within the presser's limit;
        `counted=False`: once, never refused by the limit).

        Over the limit, the first refusal in a window tells the presser privately.
        """
        user = (body.get("user") or {}).get("id") or ""
        channel = (body.get("channel") or {}).get("id") or ""
        action_ts = (body.get("actions") or [{}])[0].get("action_ts")
        delivery_id = f"action:{user}:{action_ts}" if action_ts else f"action:{uuid.uuid4().hex}"
        # from what is remembered (no Slack call before the press is handled): an admin
        # known as a home-team member is spared the limit, as their messages are
        known = self.audiences.known(user, translate.user_team(body), channel) if counted else None
        admission = await self._core.first_delivery(
            translate.PLATFORM, delivery_id, user if counted else None, "en", known
        )
        if admission:
            return delivery_id
        if admission.notice and channel:
            payload = {"op": "ephemeral", "channel": channel, "user": user}
            text = escape(admission.notice)
            await self._enqueue(channel, f"slack:{delivery_id}:limit", {**payload, "text": text})
        return None

    async def vote(self, body: dict[str, Any]) -> None:
        delivery_id = await self.admitted(body)
        if delivery_id is None:
            return
        vote = translate.vote_of(body["actions"][0])
        user = body["user"]["id"]
        where = translate.vote_origin(body)
        if vote is None or where is None:
            return
        answer_id, helpful = vote
        stored = await self._core.feedback(translate.PLATFORM, user, answer_id, helpful, where)
        message = body.get("message") or {}
        channel = body["channel"]["id"]
        if stored and message.get("ts"):
            blocks = feedback_taken(message.get("blocks") or [], user, helpful)
            payload: dict[str, Any] = {"op": "update", "channel": channel, "ts": message["ts"]}
            payload |= {"text": message.get("text", " "), "blocks": blocks}
            await self._enqueue(channel, f"slack:{delivery_id}:vote", payload)

    async def core_button(self, body: dict[str, Any]) -> None:
        """A core button (an upload offer, a held upload, "Ask a person", a case's): the
        core checks who pressed it; a choice made replaces the buttons with its result,
        anyone else is told privately; the hand-off desk's own sends say the rest."""
        parsed = translate.core_button(body)
        user = (body.get("user") or {}).get("id") or ""
        channel = (body.get("channel") or {}).get("id") or ""
        message = body.get("message") or {}
        if parsed is None or not channel:
            return
        delivery_id = await self.admitted(body)
        if delivery_id is None:
            return
        audience = await self.action_audience(body)
        if parsed[0] == "handoff":
            reply = await self._ask_person(body, user, parsed[1])
        else:
            reply = await self._core.press(
                translate.PLATFORM,
                user,
                parsed[0],
                parsed[1],
                self._fetch,
                audience,
                chat=channel,
            )
        if reply.data.get("silent"):
            return
        text = escape(reply.text)
        key = f"slack:{delivery_id}:reply"
        if reply.kind == "not_yours" or reply.data.get("private") or not message.get("ts"):
            payload = {"op": "ephemeral", "channel": channel, "user": user, "text": text}
            await self._enqueue(channel, key, payload)
            return
        section = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
        payload = {"op": "update", "channel": channel, "ts": message["ts"], "text": text}
        await self._enqueue(channel, key, {**payload, "blocks": [section]})

    async def _ask_person(self, body: dict[str, Any], user: str, value: str) -> Reply:
        """The "Ask a person" button: only one the message really carries, in its thread."""
        where = translate.vote_origin(body, HANDOFF_BLOCK)
        language = "en"
        if where is None or not value.isdigit():
            return Reply(say("handoff:gone", language), language, "handoff_gone", {"private": True})
        channel, thread_ts = translate.split_key(where)
        route = {"channel": channel, "thread_ts": thread_ts, "user": user}
        return await self._core.ask_person(
            translate.PLATFORM, user, int(value), where, route, language
        )

    async def stop(self, body: dict[str, Any]) -> None:
        """Stop: the turn the button names, if the presser asked it (else told privately).

        Handled once per press, and never refused by the rate limit: an asker over
        it can still stop their own answer.
        """
        delivery_id = await self.admitted(body, counted=False)
        if delivery_id is None:
            return
        user = (body.get("user") or {}).get("id") or ""
        channel = (body.get("channel") or {}).get("id") or ""
        turn = str((body.get("actions") or [{}])[0].get("value") or "")
        outcome = await self._core.stop_turn(translate.PLATFORM, turn, user)
        if outcome in ("not_yours", "unknown") and channel:
            facts = await self.audiences.user(user)
            language = language_of(facts.locale if facts else None)
            key = "turn:stop_not_yours" if outcome == "not_yours" else "turn:stop_over"
            payload = {"op": "ephemeral", "channel": channel, "user": user}
            text = escape(say(key, language))
            await self._enqueue(channel, f"slack:{delivery_id}:stop", {**payload, "text": text})

    async def share(self, body: dict[str, Any]) -> None:
        """ "Share in channel" posts a privately shown answer (once, whoever presses how
        often); "Keep private" only removes the buttons. Only the asker's own answers."""
        delivery_id = await self.admitted(body)
        if delivery_id is None:
            return
        action = (body.get("actions") or [{}])[0]
        user = (body.get("user") or {}).get("id") or ""
        channel = (body.get("channel") or {}).get("id") or ""
        value = str(action.get("value") or "")
        answer = None
        if channel and value.isdigit():
            key = translate.private_key(channel, user)
            answer = await self._core.shown_privately(translate.PLATFORM, key, int(value))
        if answer is None:
            return
        language = str(answer["language"])
        shared = action.get("action_id") == SHARE
        if shared:
            text, blocks = shared_answer(answer["text"], answer["citations"], language, user)
            post = {"op": "post", "channel": channel, "text": text, "blocks": blocks}
            await self._enqueue(channel, f"slack:share:{value}", post)
        url = str(body.get("response_url") or "")
        if url:  # the private copy loses its buttons and says what happened
            note = say("slack:shared" if shared else "slack:kept_private", language)
            text, blocks = private_copy(answer["text"], answer["citations"], language, note)
            respond = {"op": "respond", "url": url, "text": text, "blocks": blocks}
            await self._enqueue(
                channel, f"slack:{delivery_id}:share", {**respond, "replace_original": True}
            )

    async def ask_suggested(self, body: dict[str, Any], bot: str | None, team: str | None) -> None:
        """A suggested question's button (the greeting's, or a refusal's FAQ question):
        asked as if the user had typed it there, and answered in the message's thread
        (the greeting's own, or the refusal's), where votes and follow-ups then belong.

        The question is the button's as Slack's copy of the message shows it, not the
        press's word. A refusal's question, once asked (not over the rate limit), loses
        its button and is ticked.
        Slack never sends a press again: while this worker drains, it waits for the next.
        """
        action = (body.get("actions") or [{}])[0]
        user = (body.get("user") or {}).get("id") or ""
        channel = (body.get("channel") or {}).get("id") or ""
        shown = body.get("message") or {}
        thread = str(shown.get("thread_ts") or shown.get("ts") or "")
        question = translate.pressed_value(shown, action)
        ts = str(action.get("action_ts") or "")
        if not (user and channel and question and question.strip() and ts and thread):
            return
        event = {"channel": channel, "user": user, "text": escape(question), "ts": ts}
        event |= {
            "thread_ts": thread,
            "channel_type": translate.channel_type(channel),
            "user_team": translate.user_team(body),
            translate.PRESSED: True,  # its answer says who asked what: no one wrote it there
        }
        accepted = await self._accept(event, bot, team, False)
        if not accepted or accepted.limited:  # a repeat, or over the limit: still askable
            return
        block_id = str(action.get("block_id") or "")
        ticked = related_taken(shown.get("blocks") or [], block_id)
        if ticked is not None and shown.get("ts"):
            payload: dict[str, Any] = {"op": "update", "channel": channel, "ts": shown["ts"]}
            payload |= {"text": shown.get("text") or " ", "blocks": ticked}
            await self._enqueue(channel, f"slack:{channel}:{ts}:asked", payload)

    async def action_audience(self, body: dict[str, Any]) -> Audience:
        """The audience of whoever pressed a button (block_actions: user.id, user.team_id)."""
        user = body.get("user") or {}
        channel = (body.get("channel") or {}).get("id")
        return await self.audiences.audience(user.get("id"), translate.user_team(body), channel)

    # --- files and upload results -------------------------------------------------------
