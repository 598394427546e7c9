"""A small local server that speaks the Telegram Bot API (the methods ragbot uses), recording calls.

The real python-telegram-bot client is pointed at it (TELEGRAM_API_BASE_URL):
methods at `/bot<token>/<method>` (form-encoded or multipart bodies, values
JSON-encoded where they are objects), files at `/file/bot<token>/<path>`, and
`getUpdates` long-polls a queue the test fills, keeping Telegram's offset rule: an
update is returned again and again until a call's `offset` is past it (so a
poller that does not confirm an update gets it back).
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote

from tests.support.local_server import send_json, serve, shutdown

TOKEN = "123456:AAE-test_Token-x0123456789abcdefghijkl"  # @BotFather's shape
BOT_ID = 123456
BOT_USERNAME = "ragbot_test_bot"
Matcher = Callable[[dict[str, Any]], bool]  # which calls a throttle applies to (their params)


@dataclass
class FakeTelegram:
    """What the fake received, and what it should do next."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # time.monotonic() of each call
    refusals: list[int] = field(default_factory=list)  # indexes in `calls` answered with a 429
    files: dict[str, bytes] = field(default_factory=dict)  # file_id → bytes (getFile serves them)
    downloads: list[str] = field(default_factory=list)  # file paths downloaded
    rate_limited: dict[str, int] = field(default_factory=dict)  # method → retry_after, once
    # (method, chat id or None for any chat) → 429s still to answer: (retry_after, which calls)
    throttles: dict[tuple[str, int | None], list[tuple[int, Matcher | None]]] = field(
        default_factory=dict
    )
    failing: dict[str, tuple[int, str]] = field(default_factory=dict)  # method → (code, text)
    updates: queue.Queue[dict[str, Any]] = field(default_factory=queue.Queue)
    polls: list[dict[str, Any]] = field(default_factory=list)  # getUpdates parameters, in order
    _unconfirmed: list[dict[str, Any]] = field(default_factory=list)  # returned, not confirmed
    sent: list[dict[str, Any]] = field(default_factory=list)  # messages sendMessage returned
    on_call: Callable[[str, dict[str, Any]], None] | None = None  # sees each call (benchmarks)
    url: str = ""
    _ids: Any = field(default_factory=lambda: itertools.count(1000))
    _server: ThreadingHTTPServer | None = None
    _lock: Any = field(default_factory=threading.Lock)

    def start(self) -> FakeTelegram:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the Bot API

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                prefix = f"/file/bot{TOKEN}/"
                path = unquote(self.path)
                if not path.startswith(prefix):
                    self._send(404, {"ok": False, "description": "Not Found"})
                    return
                file_path = path.removeprefix(prefix)
                fake.downloads.append(file_path)
                data = fake.files.get(file_path.removeprefix("documents/"))
                if data is None:
                    self._send(404, {"ok": False, "description": "Not Found"})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                path = unquote(self.path)
                prefix = f"/bot{TOKEN}/"
                # read first: an unread body would be taken for the connection's next request
                if self.headers.get("Content-Length") is None:  # unknown length: not kept
                    self.close_connection = True
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not path.startswith(prefix):
                    self._send(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
                    return
                method = path.removeprefix(prefix)
                params = parse_body(self.headers.get("Content-Type") or "", body)
                status, reply = fake.answer(method, params)
                self._send(status, reply)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                send_json(self, status, json.dumps(payload).encode())

        self._server, self.url = serve(Handler)
        return self

    def stop(self) -> None:
        shutdown(self._server)

    # --- the API ------------------------------------------------------------------

    def answer(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if method == "getUpdates":  # long poll, not in `calls` (it repeats): in `polls`
            with self._lock:
                self.polls.append(params)
            offset = int(params["offset"]) if params.get("offset") not in (None, "") else None
            timeout = float(params.get("timeout") or 0)
            return 200, {"ok": True, "result": self._poll(offset, timeout)}
        with self._lock:
            self.calls.append((method, params))
            self.times.append(time.monotonic())
            if self.on_call is not None:
                self.on_call(method, params)
            retry = self.rate_limited.pop(method, None)
            if retry is None:
                retry = self._throttled(method, params)
            if retry is not None:
                self.refusals.append(len(self.calls) - 1)
        if retry is not None:
            return 429, {
                "ok": False,
                "error_code": 429,
                "description": f"Too Many Requests: retry after {retry}",
                "parameters": {"retry_after": retry},
            }
        if method in self.failing:
            code, text = self.failing[method]
            return code, {"ok": False, "error_code": code, "description": text}
        result = self.result(method, params)
        if method == "sendMessage":
            with self._lock:
                self.sent.append(result)
        return 200, {"ok": True, "result": result}

    def throttle(
        self,
        method: str,
        retry_after: int,
        times: int = 1,
        chat_id: int | None = None,
        match: Matcher | None = None,
    ) -> None:
        """Answer the next `times` calls of `method` (to `chat_id`, or any chat; only those
        `match` accepts, when given) with a 429 saying `retry_after`."""
        with self._lock:
            entries = self.throttles.setdefault((method, chat_id), [])
            entries.extend([(retry_after, match)] * times)

    def _throttled(self, method: str, params: dict[str, Any]) -> int | None:
        chat = params.get("chat_id")
        keys = [(method, int(chat))] if chat not in (None, "") else []
        for key in [*keys, (method, None)]:
            waiting = self.throttles.get(key) or []
            for i, (retry_after, match) in enumerate(waiting):
                if match is None or match(params):
                    del waiting[i]
                    return retry_after
        return None

    def refused(self, method: str, chat_id: int) -> int:
        """How many 429s for `method` to `chat_id` are still to come."""
        with self._lock:
            return len(self.throttles.get((method, chat_id)) or [])

    def _poll(self, offset: int | None, timeout: float) -> list[dict[str, Any]]:
        with self._lock:
            if offset is not None:  # Telegram forgets what the offset confirms
                self._unconfirmed = [u for u in self._unconfirmed if u["update_id"] >= offset]
            while not self.updates.empty():
                self._unconfirmed.append(self.updates.get_nowait())
            if self._unconfirmed:
                return list(self._unconfirmed)
        try:
            first = self.updates.get(timeout=min(timeout, 1.0))
        except queue.Empty:
            return []
        with self._lock:
            self._unconfirmed.append(first)
            while not self.updates.empty():
                self._unconfirmed.append(self.updates.get_nowait())
            return list(self._unconfirmed)

    def result(self, method: str, params: dict[str, Any]) -> Any:
        if method == "getMe":
            return {
                "id": BOT_ID,
                "is_bot": True,
                "first_name": "ragbot",
                "username": BOT_USERNAME,
                "can_join_groups": True,
                "can_read_all_group_messages": False,
                "supports_inline_queries": False,
            }
        if method in ("sendMessage", "sendDocument"):
            chat_id = int(params["chat_id"])
            message: dict[str, Any] = {
                "message_id": next(self._ids),
                "date": int(time.time()),
                "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "group"},
                "from": {"id": BOT_ID, "is_bot": True, "first_name": "ragbot"},
            }
            if method == "sendMessage":
                message["text"] = params.get("text", "")
            else:
                message["document"] = {"file_id": "sent", "file_unique_id": "sent"}
            return message
        if method == "editMessageText":
            return {
                "message_id": int(params["message_id"]),
                "date": int(time.time()),
                "chat": {"id": int(params["chat_id"]), "type": "private"},
                "text": params.get("text", ""),
            }
        if method == "getFile":
            file_id = params["file_id"]
            data = self.files.get(file_id, b"")
            return {
                "file_id": file_id,
                "file_unique_id": f"u-{file_id}",
                "file_size": len(data),
                "file_path": f"documents/{file_id}",
            }
        return True  # setMyCommands, setWebhook, sendChatAction, answerCallbackQuery, drafts…

    # --- what tests read ----------------------------------------------------------

    def of(
        self, method: str, chat_id: int | None = None, *, delivered: bool = False
    ) -> list[dict[str, Any]]:
        """The parameters of every call of `method` (to `chat_id` when given; `delivered`:
        only those not answered with a 429)."""
        with self._lock:
            refused = set(self.refusals) if delivered else set()
            return [
                p
                for i, (m, p) in enumerate(self.calls)
                if m == method
                and (chat_id is None or int(p.get("chat_id", 0)) == chat_id)
                and i not in refused
            ]

    def timed(self, methods: set[str], chat_id: int) -> list[tuple[str, float]]:
        """(method, time) of the calls of `methods` to `chat_id`, in order."""
        with self._lock:
            return [
                (m, t)
                for (m, p), t in zip(self.calls, self.times, strict=True)
                if m in methods and int(p.get("chat_id", 0)) == chat_id
            ]


def parse_body(content_type: str, body: bytes) -> dict[str, Any]:
    """Form-encoded or multipart parameters, JSON values decoded; files as bytes."""
    params: dict[str, Any] = {}
    if content_type.startswith("multipart/form-data"):
        head = f"Content-Type: {content_type}\r\n\r\n".encode()
        parsed = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
        for part in parsed.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True) or b""
            assert isinstance(payload, bytes)  # a form field's decoded body
            if part.get_filename():
                params[str(name)] = {"filename": part.get_filename(), "data": payload}
            else:
                params[str(name)] = _value(payload.decode())
    elif body:
        for key, values in parse_qs(body.decode(), keep_blank_values=True).items():
            params[key] = _value(values[0])
    return params


def _value(raw: str) -> Any:
    if raw[:1] in "[{":
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def private_text(update_id: int, user_id: int, text: str, language: str = "en") -> dict[str, Any]:
    """An update: `user_id` writes `text` to the bot in a private chat."""
    user = {"id": user_id, "is_bot": False, "first_name": "Citizen", "language_code": language}
    message: dict[str, Any] = {
        "message_id": update_id * 10,
        "date": int(time.time()),
        "chat": {"id": user_id, "type": "private", "first_name": "Citizen"},
        "from": user,
        "text": text,
    }
    if text.startswith("/"):
        command = text.split()[0]
        message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
    return {"update_id": update_id, "message": message}


def group_text(
    update_id: int,
    chat_id: int,
    user_id: int,
    text: str,
    *,
    reply_to: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An update: a message in a group (mention the bot with @BOT_USERNAME in `text`)."""
    user = {"id": user_id, "is_bot": False, "first_name": "Member", "language_code": "en"}
    message: dict[str, Any] = {
        "message_id": update_id * 10,
        "date": int(time.time()),
        "chat": {"id": chat_id, "type": "supergroup", "title": "Town hall"},
        "from": user,
        "text": text,
    }
    mention = f"@{BOT_USERNAME}"
    if mention in text:
        message["entities"] = [
            {"type": "mention", "offset": text.index(mention), "length": len(mention)}
        ]
    if reply_to is not None:
        message["reply_to_message"] = reply_to
    return {"update_id": update_id, "message": message}


def private_document(
    update_id: int, user_id: int, file_id: str, name: str | None, size: int, caption: str = ""
) -> dict[str, Any]:
    """An update: a document sent in a private chat (served by the fake under `file_id`)."""
    document: dict[str, Any] = {
        "file_id": file_id,
        "file_unique_id": f"u{file_id}",
        "file_size": size,
    }
    if name is not None:
        document["file_name"] = name
    message: dict[str, Any] = {
        "message_id": update_id * 10,
        "date": int(time.time()),
        "chat": {"id": user_id, "type": "private", "first_name": "Admin"},
        "from": {"id": user_id, "is_bot": False, "first_name": "Admin", "language_code": "en"},
        "document": document,
    }
    if caption:
        message["caption"] = caption
        if caption.startswith("/"):
            command = caption.split()[0]
            message["caption_entities"] = [
                {"type": "bot_command", "offset": 0, "length": len(command)}
            ]
    return {"update_id": update_id, "message": message}


def private_media(
    update_id: int, user_id: int, field: str, media: Any, caption: str = ""
) -> dict[str, Any]:
    """An update: a voice note (`field` "voice"), audio file ("audio") or photo ("photo",
    `media` a list of sizes) sent in a private chat; files served by the fake by file id."""
    message: dict[str, Any] = {
        "message_id": update_id * 10,
        "date": int(time.time()),
        "chat": {"id": user_id, "type": "private", "first_name": "Citizen"},
        "from": {"id": user_id, "is_bot": False, "first_name": "Citizen", "language_code": "en"},
        field: media,
    }
    if caption:
        message["caption"] = caption
        if caption.startswith("/"):
            command = caption.split()[0]
            message["caption_entities"] = [
                {"type": "bot_command", "offset": 0, "length": len(command)}
            ]
    return {"update_id": update_id, "message": message}


def voice(file_id: str, seconds: int, size: int) -> dict[str, Any]:
    """A voice note as the Bot API describes it (Opus in OGG)."""
    return {
        "file_id": file_id,
        "file_unique_id": f"u{file_id}",
        "duration": seconds,
        "mime_type": "audio/ogg",
        "file_size": size,
    }


def photo_sizes(file_id: str, size: int) -> list[dict[str, Any]]:
    """A photo's sizes as the Bot API lists them: a thumbnail first, `file_id` the largest."""
    return [
        {
            "file_id": f"{file_id}-thumb",
            "file_unique_id": f"u{file_id}t",
            "width": 90,
            "height": 40,
            "file_size": 900,
        },
        {
            "file_id": file_id,
            "file_unique_id": f"u{file_id}",
            "width": 900,
            "height": 200,
            "file_size": size,
        },
    ]


def callback(
    update_id: int, user_id: int, data: str, message: dict[str, Any], first_name: str = "Citizen"
) -> dict[str, Any]:
    """An update: `user_id` (named `first_name`) pressed an inline button with `data` under
    `message`."""
    return {
        "update_id": update_id,
        "callback_query": {
            "id": f"cb{update_id}",
            "from": {
                "id": user_id,
                "is_bot": False,
                "first_name": first_name,
                "language_code": "en",
            },
            "chat_instance": "ci",
            "data": data,
            "message": message,
        },
    }
