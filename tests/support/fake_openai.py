"""A small local server that speaks the OpenAI chat-completions API, with scripted replies.

The real langchain-openai client is pointed at it; each request takes the next
scripted reply: text (streamed when asked), an HTTP error, a delay, or raw bytes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.local_server import serve, shutdown
from textkit.sentences import split_sentences


@dataclass
class Reply:
    """One scripted response."""

    content: str = ""
    status: int = 200
    delay: float = 0.0
    raw: str | None = None  # sent as the message content verbatim (e.g. malformed JSON)
    pace: float = 0.0  # seconds between streamed pieces (a model writing slowly)
    cut: bool = False  # the stream ends without a finish reason (a server cutting it off)
    # a model answer citing the numbered source holding this text: "{n}" in content becomes it
    cite: str | None = None


@dataclass
class FakeOpenAI:
    """The server's script and what it received."""

    script: list[Reply] = field(default_factory=list)
    default: Reply = field(default_factory=lambda: Reply("I could not find that."))
    requests: list[dict[str, Any]] = field(default_factory=list)
    # when the script is empty: a reply computed from the request (benchmarks), else `default`
    responder: Callable[[dict[str, Any]], Reply] | None = None
    url: str = ""
    _server: ThreadingHTTPServer | None = None

    def next_reply(self, body: dict[str, Any]) -> Reply:
        if self.script:
            return self.script.pop(0)
        return self.responder(body) if self.responder is not None else self.default

    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": "fake-model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not self.path.startswith("/v1/"):  # as hosted APIs answer a base URL without /v1
                    self._send(404, {"error": {"message": "model not found"}})
                    return
                fake.requests.append(body)
                reply = fake.next_reply(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    self._send(reply.status, {"error": {"message": "scripted failure"}})
                    return
                content = reply.raw if reply.raw is not None else reply.content
                if reply.cite is not None:
                    content = content.replace("{n}", str(source_number(body, reply.cite)))
                if body.get("stream"):
                    usage = (body.get("stream_options") or {}).get("include_usage", False)
                    self._stream(content, body.get("model", "fake"), reply, usage)
                else:
                    self._send(200, _completion(content, body.get("model", "fake")))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, content: str, model: str, reply: Reply, usage: bool) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                pieces = [content[i : i + 8] for i in range(0, len(content), 8)] or [""]
                for number, piece in enumerate(pieces):
                    chunk = _chunk(piece, model, None)
                    if number == 0:  # as real servers do: the first delta names the role
                        chunk["choices"][0]["delta"]["role"] = "assistant"
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    if reply.pace:
                        time.sleep(reply.pace)
                if not reply.cut:
                    stop = _chunk("", model, "stop")
                    self.wfile.write(f"data: {json.dumps(stop)}\n\n".encode())
                if usage:  # as OpenAI sends it: a last chunk with no choices
                    last = {**_chunk("", model, None), "choices": [], "usage": _USAGE}
                    self.wfile.write(f"data: {json.dumps(last)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

        self._server, root = serve(Handler)
        self.url = root + "/v1"
        return self

    def stop(self) -> None:
        shutdown(self._server)


def source_number(body: dict[str, Any], needle: str) -> int:
    """The number of the first source in a synthesis request holding `needle` (0: none)."""
    user = str(body["messages"][-1]["content"])
    for line in user.split("\n\n"):
        head = line.removeprefix("<sources>\n")
        if head.startswith("[") and needle in head:
            return int(head[1 : head.index("]")])
    return 0


def first_source_sentence(body: dict[str, Any]) -> str:
    """The first sentence of source [1] in a synthesis request ("" when there is none)."""
    user = str(body["messages"][-1]["content"])
    if "\n[1] " not in user:
        return ""
    first = user.split("\n[1] ", 1)[-1].split("\n\n", 1)[0]
    sentences = split_sentences(first.split(") ", 1)[-1])
    return sentences[0] if sentences else ""


_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def _completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": _USAGE,
    }


def _chunk(piece: str, model: str, finish: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "delta": {"content": piece} if piece else {}, "finish_reason": finish}
        ],
    }


def echo_prompt(body: dict[str, Any]) -> Reply:
    """A model that repeats every message it was sent (the attack suite: leaks show up).

    JSON-mode calls get the echo too: not JSON, so the planner falls back to its rules.
    """
    parts = [f"{m.get('role')}: {m.get('content')}" for m in body.get("messages", [])]
    return Reply("\n".join(parts) + " [1]")
