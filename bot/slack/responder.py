"""One delivery in one Slack thread: a live preview here, the final messages via the outbox.

The preview is a stream (chat.startStream / appendStream / stopStream, the
graph's steps shown as tasks) or, when streaming is unavailable or the stream
expires half-way, a placeholder edited with chat.update at most once per
SLACK_UPDATE_INTERVAL. It starts when the turn does (Progress "received"; a turn
that must wait for a slot first shows a pending task saying it is in line), and
its message is recorded on the delivery as soon as it exists, so an attempt
that resumes a dead worker's delivery finishes that message instead of posting
a second answer. Preview calls are best effort: a 429 or an error skips them
(never a sleep inside the turn, which holds a turn slot).

The final answer is always the checked one: the stream is stopped and the
preview message is turned into the answer by a chat.update in the outbox
(further pieces, replies and form files are outbox posts too), keyed by the
delivery, so a retry or a resumed turn cannot post twice and a 429 waits off
the turn.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.messages import (
    ErrorReply,
    FinalAnswer,
    Outbound,
    Progress,
    Queued,
    Reply,
    Reset,
    Token,
)
from bot.core.platform import Delivery, access_facts
from bot.slack import api_errors
from bot.slack.asked_line import asked_line, headed
from bot.slack.blocks import (
    SECTION_LIMIT,
    answer_messages,
    core_buttons_block,
    escape,
    mrkdwn,
    share_block,
    split_text,
    stop_block,
)
from bot.slack.delivery import rate_limited
from bot.slack.features import (
    FEEDBACK_BUTTONS,
    STREAM_BUTTONS,
    TRANSIENT,
    UNKNOWN_CONTENT,
    SlackFeatures,
)
from bot.slack.status import SlackStatus
from textkit.catalog import say

logger = logging.getLogger(__name__)
STREAM_FLUSH_CHARS = 120  # tokens are sent in pieces of about this size

# (chat, key, payload, trace_id): stores one send in the outbox
Enqueue = Callable[[str, str, dict[str, Any], str | None], Awaitable[bool]]


class SlackResponder:
    """Renders one delivery's outbound events into its thread (or its response_url)."""

    def __init__(
        self,
        client: AsyncWebClient,
        delivery: Delivery,
        enqueue: Enqueue,
        *,
        streaming: bool,
        interval_s: float,
        features: SlackFeatures | None = None,
    ) -> None:
        route = delivery.message.route
        self._features = features or SlackFeatures()
        self._status = SlackStatus(client, self._features, route)
        self._client = client
        self._delivery = delivery
        self._enqueue = enqueue
        self._channel = str(route.get("channel") or "")
        self._thread = str(route.get("thread_ts") or "") or None
        self._user = str(route.get("user") or delivery.message.user_id)
        self._team = route.get("team")
        self._response_url = str(route.get("response_url") or "")
        self._private = bool(route.get("private"))  # `/ragbot ask`: shown to the asker only
        self._stop: dict[str, Any] | None = None  # the Stop button while a turn is written
        self._key = f"slack:{delivery.message.delivery_id}"
        self._streaming = streaming
        self._interval = interval_s
        # a dead worker's message for this delivery: finished, never posted again
        earlier = delivery.posted[-1] if delivery.posted else {}
        self._resumed = bool(earlier.get("ts"))
        self._ts: str | None = str(earlier["ts"]) if self._resumed else None
        self._stream_open = self._resumed and earlier.get("mode") == "stream"
        self._mode = "none"  # the live preview: "stream" | "update" | "none"
        self._text = ""  # tokens so far
        self._pending = ""  # tokens not yet sent to the stream
        self._last_edit = 0.0
        self._quiet_until = 0.0  # a preview call met a 429: previews skipped until then
        self._finals = 0  # final messages (answers, replies) enqueued so far
        self._replies = 0  # slash-command replies enqueued so far
        self.started = False

    @property
    def _quiet(self) -> bool:
        return time.monotonic() < self._quiet_until

    async def render(self, event: Outbound) -> None:
        """Show one event."""
        if self._response_url:  # a slash command: only its replies, privately
            await self._respond(event)
            return
        if isinstance(event, Queued):
            if not self.started and not self._resumed and self._mode == "none":
                self._stop = stop_block(self._delivery.message.delivery_id, event.language)
                await self._open(event.text, "pending")  # in hand, waiting: said as such
            return
        if not self.started and isinstance(event, Progress | Token):
            self.started = True  # the turn runs (it holds a slot): show that work started
            language = event.language if isinstance(event, Progress) else "en"
            self._stop = stop_block(self._delivery.message.delivery_id, language)
            await self._start(language)
            if not self._resumed:  # the thread's live status, until the answer shows
                await self._status.show(language)
        if isinstance(event, Progress) and event.text:
            await self._progress(event)
        elif isinstance(event, Token):
            await self._status.clear()
            self._text += event.text
            self._pending += event.text
            await self._stream_text()
        elif isinstance(event, Reset):
            self._text, self._pending = "", ""
        elif isinstance(event, FinalAnswer):
            native = self._features.allows(FEEDBACK_BUTTONS)
            messages = answer_messages(event, native)
            messages[0] = headed(messages[0], self._asked(event.language))
            await self._final(messages, event.result.trace_id)
            for form in event.forms:
                if form.get("send_file"):
                    audience = access_facts(self._delivery.message.audience)
                    file: dict[str, Any] = {"op": "file", "form": form["name"], **self._where()}
                    file["audience"] = audience
                    await self._send(f"form:{form['name']}", file, event.result.trace_id)
        elif isinstance(event, Reply | ErrorReply):
            text = mrkdwn(event.text)  # a forms list's `- ` items as `• ` too
            blocks = [_section(p) for p in split_text(text)]
            buttons = (
                core_buttons_block(event.data.get("buttons") or ())
                if isinstance(event, Reply)
                else None
            )
            trace = event.trace_id if isinstance(event, ErrorReply) else None
            # a reply to a pressed question says what was asked too
            message = headed(
                (text, blocks + ([buttons] if buttons else [])), self._asked(event.language)
            )
            await self._final([message], trace)

    # --- the live preview (best effort) ------------------------------------------------

    async def _start(self, language: str) -> None:
        """Show that work started: open a stream with a task or post a placeholder (or
        turn the waiting one into it); a resumed delivery posts nothing."""
        if self._resumed:  # the dead worker's message shows the answer when it is final
            await self._stop_stream()
            return
        working = say("progress:received", language)  # the core's first step, shown at once
        if self._mode == "stream":  # opened while the turn waited: the same task, now running
            await self._append(chunks=[_task("work", working, "in_progress")])
        elif self._mode == "update":
            await self._edit(f"_{escape(working)}_")
        else:
            await self._open(working, "in_progress")

    async def _open(self, title: str, status: str) -> None:
        """Open a stream whose task is `title` (`status`), or else post a placeholder."""
        if self._streaming and self._thread:  # a stream is always a reply in a thread
            try:
                response = await self._start_stream(title, status)
                self._ts, self._mode, self._stream_open = response["ts"], "stream", True
                await self._delivery.record_posted({"ts": self._ts, "mode": "stream"})
                return
            except SlackApiError as exc:
                if self._skipped(exc, "chat.startStream"):
                    return
                logger.info("streaming unavailable (%s): editing a placeholder", _error(exc))
            except (aiohttp.ClientError, TimeoutError) as exc:
                logger.info("chat.startStream failed (%s): no preview", type(exc).__name__)
                return
        await self._placeholder(f"_{escape(title)}_")

    async def _start_stream(self, title: str, status: str) -> Any:
        """chat.startStream with the task and, where Slack takes blocks in a stream, Stop."""
        chunks = [_task("work", title, status)]
        kwargs: dict[str, Any] = {
            "channel": self._channel,
            "thread_ts": self._thread or "",
            "recipient_user_id": self._user,
            "recipient_team_id": self._team,
            "task_display_mode": "timeline",
        }
        if self._stop is not None and self._features.allows(STREAM_BUTTONS):
            try:
                blocks = {"type": "blocks", "blocks": [self._stop]}
                return await self._client.chat_startStream(chunks=[*chunks, blocks], **kwargs)
            except SlackApiError as exc:
                if rate_limited(exc) is not None or _error(exc) in TRANSIENT:
                    raise
                # a stream without the button (refused for good when blocks were the cause)
                self._features.failed(STREAM_BUTTONS, exc, UNKNOWN_CONTENT)
        return await self._client.chat_startStream(chunks=chunks, **kwargs)

    async def _progress(self, event: Progress) -> None:
        if event.step == "received":  # _start already shows it
            return
        if self._mode == "stream":
            await self._append(chunks=[_task(event.step, event.text or "", "complete")])
        elif self._mode == "update" and not self._text and self._due():
            await self._edit(f"_{escape(event.text or '')}_")

    async def _stream_text(self) -> None:
        if self._mode == "stream":
            if len(self._pending) >= STREAM_FLUSH_CHARS:
                piece, self._pending = self._pending, ""
                await self._append(markdown_text=escape(piece))
        elif self._mode == "update" and self._due():
            await self._edit(mrkdwn(self._text) + " …")

    async def _append(self, **content: Any) -> None:
        if self._quiet:
            return
        try:
            await self._client.chat_appendStream(
                channel=self._channel, ts=self._ts or "", **content
            )
        except SlackApiError as exc:  # expired or refused: carry on in a placeholder
            if self._skipped(exc, "chat.appendStream"):
                return
            logger.info("stream append failed (%s): switching to chat.update", _error(exc))
            self._mode, self._stream_open = "none", False
            self._ts = None
            await self._placeholder(mrkdwn(self._text) or "…")
        except (aiohttp.ClientError, TimeoutError) as exc:
            logger.info("chat.appendStream failed (%s): skipped", type(exc).__name__)

    async def _placeholder(self, text: str) -> None:
        if self._quiet:
            return
        try:
            response = await self._client.chat_postMessage(
                channel=self._channel, thread_ts=self._thread, text=text, blocks=self._blocks(text)
            )
        except SlackApiError as exc:
            if not self._skipped(exc, "chat.postMessage"):
                logger.info("no placeholder (%s): the answer is posted when ready", _error(exc))
            return
        except (aiohttp.ClientError, TimeoutError) as exc:
            logger.info("no placeholder (%s): the answer is posted when ready", type(exc).__name__)
            return
        self._ts, self._mode, self._last_edit = response["ts"], "update", time.monotonic()
        await self._delivery.record_posted({"ts": self._ts, "mode": "update"})

    async def _edit(self, text: str) -> None:
        if self._ts is None or self._quiet:
            return
        self._last_edit = time.monotonic()
        try:
            await self._client.chat_update(
                channel=self._channel, ts=self._ts, text=text, blocks=self._blocks(text)
            )
        except SlackApiError as exc:
            if not self._skipped(exc, "chat.update"):
                logger.info("preview edit failed (%s): skipped", _error(exc))
        except (aiohttp.ClientError, TimeoutError) as exc:
            logger.info("preview edit failed (%s): skipped", type(exc).__name__)

    def _blocks(self, text: str) -> list[dict[str, Any]] | None:
        """A placeholder's blocks: its text, and Stop while the turn is written."""
        if self._stop is None:
            return None
        return [_section(text[:SECTION_LIMIT]), self._stop]

    async def _stop_stream(self) -> None:
        """End the stream (ours, or a dead worker's) so its message can become the answer."""
        if not self._stream_open:
            return
        self._stream_open = False
        try:
            await self._client.chat_stopStream(channel=self._channel, ts=self._ts or "")
        except SlackApiError as exc:  # expired already: the final update still applies
            logger.info("stopStream failed (%s)", _error(exc))
        except (aiohttp.ClientError, TimeoutError) as exc:
            logger.info("stopStream failed (%s)", type(exc).__name__)

    def _skipped(self, exc: SlackApiError, method: str) -> bool:
        """A 429 on a preview call: skip previews for Slack's Retry-After (never sleep)."""
        after = rate_limited(exc)
        if after is None:
            return False
        logger.info("%s rate limited: previews paused for %.0f s", method, after)
        self._quiet_until = time.monotonic() + after
        return True

    def _due(self) -> bool:
        return time.monotonic() - self._last_edit >= self._interval

    # --- the final messages (the outbox) ------------------------------------------------

    async def _final(
        self, messages: list[tuple[str, list[dict[str, Any]]]], trace_id: str | None
    ) -> None:
        """The preview message becomes the first piece; the rest are posted after it."""
        self._stop = None  # written: nothing left to stop
        await self._status.clear()
        await self._stop_stream()
        finals = self._finals
        self._finals += 1
        for i, (text, blocks) in enumerate(messages):
            payload: dict[str, Any] = {"text": text, "blocks": blocks, **self._where()}
            if i == 0 and self._ts is not None:
                payload.update(op="update", ts=self._ts)
            else:
                payload["op"] = "post"
            await self._send(f"final:{finals}:{i}", payload, trace_id)
        # a later reply of this delivery (another file's receipt) is a message of its own
        self._ts, self._mode = None, "none"

    async def _respond(self, event: Outbound) -> None:
        """A slash command's replies by its response_url, seen only by the one who sent it.

        A private question (`/ragbot ask`) shows that work started, then its
        answer with "Share in channel" / "Keep private" in place of that note.
        """
        payload: dict[str, Any] = {"op": "respond", "url": self._response_url}
        if isinstance(event, Reply | ErrorReply) and event.text:
            await self._send("respond", {**payload, "text": mrkdwn(event.text)})
        elif not self._private:
            return
        elif isinstance(event, Progress) and event.step == "received":
            await self._send("respond", {**payload, "text": f"_{escape(event.text or '')}_"})
        elif isinstance(event, FinalAnswer):
            shown = dataclasses.replace(event, message_id=None, handoff=False)
            for i, (text, blocks) in enumerate(answer_messages(shown, ask_buttons=False)):
                if i == 0 and event.message_id is not None:
                    blocks = [*blocks, share_block(event.message_id, event.language)]
                piece = {**payload, "text": text, "blocks": blocks, "replace_original": i == 0}
                await self._send("respond", piece, event.result.trace_id)

    def _asked(self, language: str) -> tuple[dict[str, Any], str] | None:
        """Who asked what, over the answer to a question a button asked (route `asked`)."""
        message = self._delivery.message
        question = str(message.route.get("asked") or "")
        return asked_line(question, self._user, message.direct, language) if question else None

    def _where(self) -> dict[str, Any]:
        return {"channel": self._channel, "thread_ts": self._thread}

    async def _send(self, what: str, payload: dict[str, Any], trace_id: str | None = None) -> None:
        """Store one send; its key is the same on a resumed attempt, so it is sent once."""
        if what == "respond":
            what, self._replies = f"respond:{self._replies}", self._replies + 1
        await self._enqueue(self._channel, f"{self._key}:{what}", payload, trace_id)


def _task(task_id: str, title: str, status: str) -> dict[str, Any]:
    return {"type": "task_update", "id": task_id, "title": title[:256], "status": status}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _error(exc: SlackApiError) -> str:
    return api_errors.describe(exc)
