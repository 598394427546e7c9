"""One answer in one Slack thread: a stream (or a throttled placeholder), then the final blocks.

Streaming uses Slack's chat.startStream / appendStream / stopStream, with the
graph's steps shown as tasks. When streaming is unavailable, or the stream
expires half-way, a placeholder message is edited with chat.update, at most
once per SLACK_UPDATE_INTERVAL. The final message is always the checked answer
(chat.update after the stream stops), so text streamed before a reset never
stays visible.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.messages import ErrorReply, FinalAnswer, Outbound, Progress, Reply, Reset, Token
from bot.slack.render import answer_messages, core_buttons_block, escape, split_text
from textkit.catalog import say

logger = logging.getLogger(__name__)
STREAM_FLUSH_CHARS = 120  # tokens are sent in pieces of about this size


class SlackResponder:
    """Renders one delivery's outbound events into a thread."""

    def __init__(
        self,
        client: AsyncWebClient,
        channel: str,
        thread_ts: str,
        user_id: str,
        team_id: str | None,
        *,
        streaming: bool,
        interval_s: float,
    ) -> None:
        self._client = client
        self._channel = channel
        self._thread = thread_ts
        self._user = user_id
        self._team = team_id
        self._streaming = streaming
        self._interval = interval_s
        self._ts: str | None = None  # the message being streamed into or edited
        self._mode = "none"  # "stream" | "update"
        self._text = ""  # tokens so far
        self._pending = ""  # tokens not yet sent to the stream
        self._last_edit = 0.0
        self.posted = 0  # final answers and replies posted (the benchmark counts them)

    async def start(self, language: str) -> None:
        """Show that work started: open a stream with a task, or post a placeholder."""
        working = say("progress:received", language)  # the core's first step, shown at once
        if self._streaming:
            try:
                response = await self._client.chat_startStream(
                    channel=self._channel,
                    thread_ts=self._thread,
                    recipient_user_id=self._user,
                    recipient_team_id=self._team,
                    task_display_mode="timeline",
                    chunks=[_task("work", working, "in_progress")],
                )
                self._ts, self._mode = response["ts"], "stream"
                return
            except SlackApiError as exc:
                logger.info("streaming unavailable (%s): editing a placeholder", _error(exc))
        await self._placeholder(f"_{escape(working)}_")

    async def render(self, event: Outbound) -> None:
        """Show one event."""
        if isinstance(event, Progress) and event.text:
            await self._progress(event)
        elif isinstance(event, Token):
            self._text += event.text
            self._pending += event.text
            await self._stream_text()
        elif isinstance(event, Reset):
            self._text, self._pending = "", ""
        elif isinstance(event, FinalAnswer):
            await self._final(answer_messages(event))
        elif isinstance(event, Reply | ErrorReply):
            text = escape(event.text)
            blocks = [_section(p) for p in split_text(text)]
            buttons = (
                core_buttons_block(event.data.get("buttons") or ())
                if isinstance(event, Reply)
                else None
            )
            await self._final([(text, blocks + ([buttons] if buttons else []))])

    async def _progress(self, event: Progress) -> None:
        if event.step == "received":  # start() already shows it
            return
        if self._mode == "stream":
            await self._append(chunks=[_task(event.step, event.text or "", "complete")])
        elif not self._text and self._due():
            await self._edit(f"_{escape(event.text or '')}_")

    async def _stream_text(self, force: bool = False) -> None:
        if self._mode == "stream":
            if self._pending and (force or len(self._pending) >= STREAM_FLUSH_CHARS):
                piece, self._pending = self._pending, ""
                await self._append(markdown_text=escape(piece))
        elif self._mode == "update" and (force or self._due()):
            await self._edit(escape(self._text) + " …")

    async def _append(self, **content: Any) -> None:
        try:
            await self._client.chat_appendStream(
                channel=self._channel, ts=self._ts or "", **content
            )
        except SlackApiError as exc:  # expired or refused: carry on in a placeholder
            logger.info("stream append failed (%s): switching to chat.update", _error(exc))
            self._mode = "none"
            await self._placeholder(escape(self._text) or "…")

    async def _final(self, messages: list[tuple[str, list[dict[str, Any]]]]) -> None:
        first_text, first_blocks = messages[0]
        if self._mode == "stream":
            try:
                await self._client.chat_stopStream(channel=self._channel, ts=self._ts or "")
            except SlackApiError as exc:
                logger.info("stopStream failed (%s)", _error(exc))
        if self._ts is not None:
            try:
                await self._client.chat_update(
                    channel=self._channel, ts=self._ts, text=first_text, blocks=first_blocks
                )
            except SlackApiError as exc:  # the streamed message cannot be edited: post anew
                logger.info("final update failed (%s): posting the answer", _error(exc))
                self._ts = None
        if self._ts is None:
            await self._post(first_text, first_blocks)
        for text, blocks in messages[1:]:
            await self._post(text, blocks)
        self.posted += 1

    async def _placeholder(self, text: str) -> None:
        response = await self._post(text, None)
        self._ts, self._mode, self._last_edit = response["ts"], "update", time.monotonic()

    async def _post(self, text: str, blocks: list[dict[str, Any]] | None) -> Any:
        return await self._client.chat_postMessage(
            channel=self._channel, thread_ts=self._thread, text=text, blocks=blocks
        )

    async def _edit(self, text: str) -> None:
        if self._ts is None:
            return
        self._last_edit = time.monotonic()
        await self._client.chat_update(channel=self._channel, ts=self._ts, text=text)

    def _due(self) -> bool:
        return time.monotonic() - self._last_edit >= self._interval


def _task(task_id: str, title: str, status: str) -> dict[str, Any]:
    return {"type": "task_update", "id": task_id, "title": title[:256], "status": status}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _error(exc: SlackApiError) -> str:
    return str(exc.response.get("error") if exc.response is not None else exc)
