"""What a failed Slack Web API call said, read safely whatever came back.

slack-sdk's `SlackApiError.response` is a Slack response whose `data` is the
JSON body, but not always: a proxy's error page (502 Bad Gateway, 404) comes as
a string (text/plain), an empty dict (text/html) or, when it claims to be JSON,
the raw aiohttp response, which has no `get` at all. Everything the adapter
learns from a failed call goes through here, so an odd answer is one clear log
line ("HTTP 502, not a Web API answer"), never an AttributeError in the handler.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slack_sdk.errors import SlackApiError

from bot.telemetry.failures import brief


def _response(exc: BaseException) -> Any:
    return exc.response if isinstance(exc, SlackApiError) else None


def body(exc: BaseException) -> Mapping[str, Any]:
    """The JSON object Slack answered the failed call with ({} when it was not one)."""
    data = getattr(_response(exc), "data", None)
    return data if isinstance(data, Mapping) else {}


def status(exc: BaseException) -> int:
    """The HTTP status of the failed call (0: none known)."""
    response = _response(exc)
    for name in ("status_code", "status"):  # a Slack response, or aiohttp's own
        value = getattr(response, name, None)
        if isinstance(value, int):
            return value
    return 0


def headers(exc: BaseException) -> Mapping[str, Any]:
    """The failed call's response headers ({} when none)."""
    found = getattr(_response(exc), "headers", None)
    return found if isinstance(found, Mapping) else {}


def error(exc: BaseException) -> str:
    """Slack's `error` code ("" when the answer did not say one)."""
    return str(body(exc).get("error") or "")


def needed(exc: BaseException) -> str:
    """The scope Slack said the call needs ("" when not said)."""
    return str(body(exc).get("needed") or "")


def describe(exc: BaseException) -> str:
    """One line for the log: Slack's error code, or the HTTP status of an answer that was
    not the Web API's (a proxy's page), or the exception's type and first line."""
    code = error(exc)
    if code:
        return code
    if isinstance(exc, SlackApiError):
        return f"HTTP {status(exc) or '?'}, not a Web API answer (a proxy or outage page?)"
    return brief(exc)
