"""A small local server that speaks the Slack Web API (the methods ragbot uses), recording calls.

The real slack-sdk client is pointed at it (SLACK_API_BASE_URL). It also serves
shared files (checking the bot's bearer token) and response_url posts.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from tests.support.local_server import serve, shutdown

TOKEN = "xoxb-test-token"
BOT_USER = "UBOT"
# what a proxy answers when Slack cannot be reached: a page, not the Web API's JSON
ERROR_PAGE = (
    "<html>\n<head><title>{status} Bad Gateway</title></head>\n<body>\n"
    "<center><h1>{status} Bad Gateway</h1></center>\n<hr><center>nginx</center>\n"
    "</body>\n</html>\n"
)
SCOPES = {"users.info": "users:read", "conversations.info": "channels:read"}  # for missing_scope


@dataclass
class Throttle:
    """429s for `times` calls of `method` whose parameters satisfy `when`."""

    method: str
    times: int
    retry_after: int
    when: Callable[[dict[str, Any]], bool]


@dataclass
class FakeSlack:
    """What the fake received, and what it should do next."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    responses: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # time.monotonic() of each call
    files: dict[str, bytes] = field(default_factory=dict)  # served at /files/<name>
    downloads: list[str | None] = field(default_factory=list)  # Authorization headers seen
    failing: dict[str, str] = field(default_factory=dict)  # method → Slack error to return
    # method → (status, Content-Type) of an HTML error page answered instead of Slack's JSON
    # (a proxy or load balancer in front of Slack: 502 Bad Gateway, 404 Not Found)
    pages: dict[str, tuple[int, str]] = field(default_factory=dict)
    rate_limited: set[str] = field(default_factory=set)  # methods answering 429 once
    throttles: list[Throttle] = field(default_factory=list)  # see `throttle`
    # users.info: user id → the fields to answer with (unknown users: home team T1, no guest)
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    # conversations.info: channel id → fields replacing the defaults (a channel shared
    # with no one; ids starting with D are DMs), e.g. {"is_ext_shared": True}
    channels: dict[str, dict[str, Any]] = field(default_factory=dict)
    delays: dict[str, float] = field(default_factory=dict)  # method → seconds before answering
    user_delays: dict[str, float] = field(default_factory=dict)  # users.info of a user: seconds
    # block (or stream chunk) types this Slack does not know: invalid_blocks when sent
    unknown_blocks: set[str] = field(default_factory=set)
    url: str = ""
    _ts: Any = field(default_factory=lambda: itertools.count(1))
    _server: ThreadingHTTPServer | None = None
    _lock: Any = field(default_factory=threading.Lock)

    def start(self) -> FakeSlack:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            # keep-alive, as Slack's Web API: a client's calls reuse its connections
            # (HTTP/1.0 closed each one, a setup per call the real service does not cost)
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                if self.path.startswith("/api/"):  # some methods are GETs with a query
                    method, _, query = self.path.removeprefix("/api/").partition("?")
                    params = {k: v[0] for k, v in parse_qs(query).items()}
                    if self._page(method, params):
                        return
                    reply = fake.reply(method, params)
                    fake.record(method, params, reply)
                    self._send(200, json.dumps(reply).encode(), "application/json")
                    return
                name = self.path.removeprefix("/files/")
                fake.downloads.append(self.headers.get("Authorization"))
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    self._send(403, b"forbidden", "text/plain")
                elif name not in fake.files:
                    self._send(404, b"not found", "text/plain")
                else:
                    self._send(200, fake.files[name], "application/octet-stream")

            def do_POST(self) -> None:
                if self.headers.get("Content-Length") is None:  # a body of unknown length:
                    self.close_connection = True  # not kept, or its rest is the next request
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                method, _, query = self.path.strip("/").removeprefix("api/").partition("?")
                params = fake.parse(body, self.headers.get("Content-Type", ""))
                params.update({k: v[0] for k, v in parse_qs(query).items()})
                after = fake.limited(method, params)
                if after is not None:
                    fake.record(f"429:{method}", params, {"ok": False, "status": 429})
                    self.send_response(429)
                    self.send_header("Retry-After", str(after))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self._page(method, params):
                    return
                reply = fake.reply(method, params)
                fake.record(method, params, reply)
                self._send(200, json.dumps(reply).encode(), "application/json")

            def _page(self, method: str, params: dict[str, Any]) -> bool:
                """Answer with an HTML error page when `pages` says so for `method`."""
                page = fake.pages.get(method)
                if page is None:
                    return False
                status, kind = page
                fake.record(f"{status}:{method}", params, {"ok": False, "status": status})
                self._send(status, ERROR_PAGE.format(status=status).encode(), kind)
                return True

            def _send(self, status: int, data: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server, root = serve(Handler)
        self.url = root + "/api/"
        return self

    def throttle(
        self,
        method: str,
        *,
        times: int = 1,
        retry_after: int = 1,
        when: Callable[[dict[str, Any]], bool] = lambda params: True,
    ) -> None:
        """Answer the next `times` calls of `method` matching `when` with 429 + Retry-After."""
        with self._lock:
            self.throttles.append(Throttle(method, times, retry_after, when))

    def limited(self, method: str, params: dict[str, Any]) -> int | None:
        """The Retry-After to answer this call with, if it is to be refused with a 429."""
        with self._lock:
            if method in self.rate_limited:
                self.rate_limited.discard(method)
                return 1
            for rule in self.throttles:
                if rule.method == method and rule.times > 0 and rule.when(params):
                    rule.times -= 1
                    return rule.retry_after
        return None

    def record(self, method: str, params: dict[str, Any], reply: dict[str, Any]) -> None:
        """One call with its reply and time (the lists stay aligned across threads)."""
        with self._lock:
            self.calls.append((method, params))
            self.responses.append((method, reply))
            self.times.append(time.monotonic())

    def stop(self) -> None:
        shutdown(self._server)

    @property
    def root(self) -> str:
        return self.url.removesuffix("api/")

    @staticmethod
    def parse(body: bytes, kind: str) -> dict[str, Any]:
        if "json" in kind:
            return dict(json.loads(body or b"{}"))
        params: dict[str, Any] = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        for key in ("blocks", "chunks"):
            if isinstance(params.get(key), str):
                params[key] = json.loads(params[key])
        return params

    def reply(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if method in self.delays:  # a slow Slack (this handler runs on its own thread)
            time.sleep(self.delays[method])
        if method in self.failing:
            error = self.failing[method]
            if error == "missing_scope":  # Slack names the scope the method needs
                return {"ok": False, "error": error, "needed": SCOPES.get(method, "")}
            return {"ok": False, "error": error}
        if self._unknown(params or {}):
            return {"ok": False, "error": "invalid_blocks"}
        ts = f"1700000000.{next(self._ts):06d}"
        if method == "auth.test":
            return {
                "ok": True,
                "user_id": BOT_USER,
                "bot_id": "BBOT",
                "team_id": "T1",
                "url": "https://example.slack.com/",
            }
        if method == "users.info":
            user_id = (params or {}).get("user", "")
            time.sleep(self.user_delays.get(user_id, 0.0))
            default = {"team_id": "T1", "is_restricted": False, "is_ultra_restricted": False}
            return {"ok": True, "user": {"id": user_id, **self.users.get(user_id, default)}}
        if method == "conversations.info":
            channel = (params or {}).get("channel", "")
            return {
                "ok": True,
                "channel": {**self.channel_info(channel), **self.channels.get(channel, {})},
            }
        if method == "chat.update":  # as Slack does: the edited message keeps its ts
            params = params or {}
            return {"ok": True, "ts": params.get("ts"), "channel": params.get("channel")}
        if method == "files.getUploadURLExternal":
            return {"ok": True, "upload_url": f"{self.root}upload/F1", "file_id": "F1"}
        if method == "files.completeUploadExternal":
            return {"ok": True, "files": [{"id": "F1"}]}
        return {"ok": True, "ts": ts, "channel": "C1"}

    def _unknown(self, params: dict[str, Any]) -> bool:
        """The call carries a block or chunk of a type this Slack does not know."""
        items = [*(params.get("blocks") or []), *(params.get("chunks") or [])]
        return any(isinstance(i, dict) and i.get("type") in self.unknown_blocks for i in items)

    @staticmethod
    def channel_info(channel: str) -> dict[str, Any]:
        """conversations.info's default answer: a DM, or a channel shared with no one."""
        if channel.startswith("D"):
            return {"id": channel, "is_im": True, "user": "U1"}
        return {
            "id": channel,
            "is_channel": True,
            "is_im": False,
            "is_shared": False,
            "is_ext_shared": False,
            "is_org_shared": False,
            "is_pending_ext_shared": False,
            "pending_shared": [],
        }

    def of(self, method: str, **where: str) -> list[dict[str, Any]]:
        """The calls of `method` whose parameters include `where`."""
        return [
            p for m, p in self.calls if m == method and all(p.get(k) == v for k, v in where.items())
        ]
