"""A small local server that speaks OpenAI's `POST /v1/audio/transcriptions` (multipart
`file` and `model`), as OpenAI and local whisper servers do, recording each request."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.fake_telegram import parse_body
from tests.support.local_server import send_json, serve, shutdown

QUESTION = "How much does an adult passport renewal cost?"


@dataclass
class FakeTranscriber:
    """A local OpenAI-compatible `/audio/transcriptions`: records each request, answers
    `{"text": transcript}` (or `status` with an error body when it is not 200)."""

    transcript: str = QUESTION
    status: int = 200
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    _server: ThreadingHTTPServer | None = None

    def start(self) -> FakeTranscriber:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                params = parse_body(self.headers.get("Content-Type") or "", body)
                params["path"] = self.path
                params["authorization"] = self.headers.get("Authorization")
                fake.requests.append(params)
                if fake.status != 200:
                    send_json(self, fake.status, b'{"error": {"message": "model not loaded"}}')
                    return
                send_json(self, 200, json.dumps({"text": fake.transcript}).encode())

        self._server, root = serve(Handler)
        self.url = f"{root}/v1"
        return self

    def stop(self) -> None:
        shutdown(self._server)
