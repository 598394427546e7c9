"""What a user sees in a chat of the fake Telegram or a thread of the fake Slack, now.

Counting complete answers the way a user would: every message the bot posted,
as its last edit (or stream) left it, deleted ones gone. Shared by the
crash-recovery tests and `bench/serve.py --crash`.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.fake_slack import FakeSlack
from tests.support.fake_telegram import FakeTelegram


def telegram_shown(fake: FakeTelegram, chat_id: int) -> dict[int, str]:
    """The messages the bot left in a chat: message id → the text it shows now."""
    with fake._lock:
        calls, sent = list(fake.calls), list(fake.sent)
    shown = {m["message_id"]: m.get("text", "") for m in sent if m["chat"]["id"] == chat_id}
    for method, params in calls:  # edits and deletions come after their message was sent
        if int(params.get("chat_id", 0)) != chat_id or "message_id" not in params:
            continue
        if method == "editMessageText" and int(params["message_id"]) in shown:
            shown[int(params["message_id"])] = params.get("text", "")
        elif method == "deleteMessage":
            shown.pop(int(params["message_id"]), None)
    return shown


def _content(params: dict[str, Any]) -> str:
    parts = [params.get("text") or "", params.get("markdown_text") or ""]
    parts += [json.dumps(params[k]) for k in ("blocks", "chunks") if params.get(k)]
    return " ".join(parts)


def slack_shown(fake: FakeSlack, channel: str, thread_ts: str) -> dict[str, str]:
    """The messages the bot left in a thread: ts → what it shows now (streams included)."""
    with fake._lock:
        calls = list(zip(fake.calls, fake.responses, strict=True))
    shown: dict[str, str] = {}
    for (method, params), (_, reply) in calls:
        ts = params.get("ts")
        if method in ("chat.postMessage", "chat.startStream"):
            if params.get("channel") == channel and params.get("thread_ts") == thread_ts:
                shown[reply["ts"]] = _content(params)
        elif ts not in shown:
            continue
        elif method in ("chat.appendStream", "chat.stopStream"):
            shown[ts] += " " + _content(params)
        elif method == "chat.update":
            shown[ts] = _content(params)
        elif method == "chat.delete":
            del shown[ts]
    return shown
