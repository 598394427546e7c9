"""Sending to Slack: the outbox channel, each stored send one Web API call, failures sorted.

Final answers (each piece), replies, form files, slash-command replies and upload
results are enqueued in the core's outbox; the outbox calls `send` for one row at
a time, per channel in order, no faster than one a second per channel (Slack's
chat.postMessage allowance). A 429 is never slept on here: it goes back to the
outbox with Slack's Retry-After, so only that channel waits and no turn holds a
slot meanwhile; 5xx and network errors are retried with a backoff; what Slack
refuses for good (channel_not_found, not_in_channel, is_archived,
invalid_auth…) is Undeliverable, and `ragbot traces` shows why.

Payloads (JSON, written by the renderer and the adapter):
`{"op": "post", "channel", "thread_ts"?, "text", "blocks"?}`,
`{"op": "update", "channel", "ts", "thread_ts"?, "text", "blocks"?}` (the
streamed or placeholder message becomes the answer; posted anew in the thread
when it cannot be edited), `{"op": "ephemeral", "channel", "user", "text"}`,
`{"op": "file", "channel", "thread_ts", "form", "audience"}` and
`{"op": "respond", "url", "text", "blocks"?, "response_type"?, "replace_original"?,
"delete_original"?}` (a slash command's or a button's response_url). Hand-off
messages name their case instead of a ts (`case_thread`, `case_card`: see
`bot.slack.cases`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.core.messages import Audience
from bot.core.platform import Channel, Pending, RetryLater, Undeliverable, audience_from
from bot.slack import api_errors
from bot.slack.blocks import classic_feedback
from bot.slack.features import FEEDBACK_BUTTONS, TRANSIENT, SlackFeatures

logger = logging.getLogger(__name__)
CHANNEL_GAP_S = 1.0  # chat.postMessage: about one message per second per channel
# the conversation or the app is gone: an edit that fails so cannot be posted anew either
GONE = frozenset(
    {
        "channel_not_found",
        "not_in_channel",
        "is_archived",
        "invalid_auth",
        "not_authed",
        "account_inactive",
        "token_revoked",
        "token_expired",
        "missing_scope",
        "restricted_action",
        "team_access_not_granted",
    }
)

FormFile = Callable[[str, Audience], Awaitable[Any]]  # (form name, audience) → stored file
# (case, platform) → "channel:ts" of its card; None: not yet; "": never (its send failed)
CardRef = Callable[[int, str], Awaitable[str | None]]


def retry_after(headers: Mapping[str, Any] | None) -> float | None:
    """Seconds from a Retry-After header (any case; aiohttp may give a list), if given."""
    for name, value in (headers or {}).items():
        if name.lower() == "retry-after":
            raw = value[0] if isinstance(value, list | tuple) else value
            try:
                return float(raw)
            except (TypeError, ValueError):
                return None
    return None


def rate_limited(exc: SlackApiError) -> float | None:
    """Retry-After seconds when `exc` is a 429 (1.0 when Slack gave none); else None."""
    if api_errors.status(exc) != 429:
        return None
    return retry_after(api_errors.headers(exc)) or 1.0


def _error(exc: SlackApiError) -> str:
    return api_errors.error(exc)


def sorted_failure(exc: SlackApiError) -> RetryLater | Undeliverable:
    """A failed Web API call as the outbox's retry-or-give-up."""
    status = api_errors.status(exc)
    error = api_errors.error(exc)
    if status == 429:
        return RetryLater("slack 429", retry_after(api_errors.headers(exc)) or 1.0)
    if status >= 500 or error in TRANSIENT:
        return RetryLater(f"slack {status} {error}".strip())
    return Undeliverable(error or f"slack status {status}")


class SlackSender:
    """Makes one outbox row's Slack call (the `send` of the outbox Channel)."""

    def __init__(
        self,
        client: AsyncWebClient,
        form_file: FormFile,
        card_ref: CardRef | None = None,
        features: SlackFeatures | None = None,
    ) -> None:
        self._client = client
        self._form_file = form_file
        self._card_ref = card_ref
        self._features = features or SlackFeatures()

    def channel(self) -> Channel:
        """The outbox channel: these sends, no closer together than CHANNEL_GAP_S a channel."""
        return Channel(self.send, _channel_gap)

    async def send(self, row: Pending) -> dict[str, Any] | None:
        """Send `row`; raise RetryLater / Undeliverable as the outbox expects.

        A workspace that refuses Slack's feedback buttons block gets the answer
        with plain buttons instead (and no more of those blocks from this worker).
        """
        try:
            payload = await self._placed(row.payload)
            try:
                return await self._send(payload)
            except SlackApiError as exc:
                blocks = payload.get("blocks") or []
                plain = classic_feedback(blocks) if _error(exc) == "invalid_blocks" else None
                if plain is None:
                    raise
                sent = await self._send({**payload, "blocks": plain})
                # taken with plain buttons: the feedback block was what Slack refused
                self._features.refuse(FEEDBACK_BUTTONS, "invalid_blocks")
                return sent
        except SlackApiError as exc:
            raise sorted_failure(exc) from exc
        except (aiohttp.ClientError, TimeoutError) as exc:  # the network: try again later
            raise RetryLater(f"network: {type(exc).__name__}") from exc

    async def _placed(self, p: dict[str, Any]) -> dict[str, Any]:
        """A hand-off message placed under its case's card (`case_thread`) or editing it
        (`case_card`): the card's ts, once the card is posted (before: later)."""
        case = p.get("case_thread") or p.get("case_card")
        if not case or self._card_ref is None:
            return p
        ref = await self._card_ref(int(case), "slack")
        if ref == "":  # the card could never be posted: nothing can go under it
            raise Undeliverable("the case's card was never posted")
        if ref is None:
            raise RetryLater("the case's card is not posted yet")
        ts = ref.partition(":")[2]
        return {**p, "thread_ts": ts} if p.get("case_thread") else {**p, "ts": ts}

    async def _send(self, p: dict[str, Any]) -> dict[str, Any] | None:
        op = p.get("op")
        if op == "post":
            return await self._post(p)
        if op == "update":
            try:
                reply = await self._client.chat_update(
                    channel=p["channel"], ts=p["ts"], text=p["text"], blocks=p.get("blocks")
                )
                return {"ts": reply.get("ts") or p["ts"]}
            except SlackApiError as exc:
                failure = sorted_failure(exc)
                if isinstance(failure, RetryLater) or str(failure) in GONE:
                    raise
                # deleted, too old, still streaming: the answer is posted anew, once
                logger.info("final update refused (%s): posting the answer", failure)
                return await self._post(p)
        if op == "ephemeral":
            await self._client.chat_postEphemeral(
                channel=p["channel"], user=p["user"], text=p["text"]
            )
            return None
        if op == "file":
            file = await self._form_file(p["form"], audience_from(p.get("audience") or {}))
            if file is None:  # no stored file (any more), or not for this audience
                return None
            await self._client.files_upload_v2(
                channel=p["channel"],
                thread_ts=p.get("thread_ts") or None,
                content=file.data,
                filename=file.name,
                title=p["form"],
            )
            return None
        if op == "respond":
            await self._respond(p)
            return None
        raise Undeliverable(f"unknown slack send {op!r}")

    async def _post(self, p: dict[str, Any]) -> dict[str, Any]:
        reply = await self._client.chat_postMessage(
            channel=p["channel"],
            thread_ts=p.get("thread_ts") or None,
            text=p["text"],
            blocks=p.get("blocks"),
        )
        return {"ts": reply.get("ts")}

    async def _respond(self, p: dict[str, Any]) -> None:
        """A slash command's reply, by its response_url (valid 30 minutes, five times)."""
        response = await AsyncWebhookClient(p["url"]).send(
            text=p["text"],
            blocks=p.get("blocks"),
            response_type=p.get("response_type") or "ephemeral",
            replace_original=p.get("replace_original"),
            delete_original=p.get("delete_original"),
        )
        status = response.status_code
        if status == 429:
            raise RetryLater("slack 429", retry_after(response.headers) or 1.0)
        if status >= 500:
            raise RetryLater(f"response_url {status}")
        if status >= 300:  # expired, used up: Slack will not take it
            raise Undeliverable(f"response_url {status} {response.body}".strip())


def _channel_gap(channel: str) -> float:
    """Least time between two outbox sends to one channel."""
    del channel
    return CHANNEL_GAP_S
