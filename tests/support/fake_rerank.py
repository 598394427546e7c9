"""A small local server speaking the common `/rerank` API (Jina, Cohere, vLLM, llama.cpp).

The real client (graph.rerank.Reranker) is pointed at it. It scores by a
rule the test chooses: a document holding `prefer` scores 0.9, any other
0.1 (so the documents the rule picks come first, the rest in their order).
`mode` makes it misbehave: "error" (HTTP 500), "slow" (answers after
`delay` seconds), "garbage" (a body that is not JSON), "bad_index" (JSON
naming a document that was not sent), "score" (names the score `score`,
as some servers do).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.local_server import send_json, serve, shutdown


@dataclass
class FakeRerank:
    """The server's rule and what it received (each request's body and headers)."""

    prefer: str = ""
    mode: str = "ok"
    delay: float = 2.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    url: str = ""  # the root to set RERANK_BASE_URL to (requests go to {url}/rerank)
    _server: ThreadingHTTPServer | None = None

    def results(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """Each document's score under the rule, best first (as the servers order them)."""
        name = "score" if self.mode == "score" else "relevance_score"
        scored = [
            {"index": i, name: 0.9 if self.prefer and self.prefer in doc else 0.1}
            for i, doc in enumerate(body["documents"])
        ]
        ranked = sorted(scored, key=lambda r: -r[name])
        return ranked[: int(body.get("top_n") or len(ranked))]

    def start(self) -> FakeRerank:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the real servers

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/v1/rerank":
                    self._send(404, b'{"error": "not found"}')
                    return
                fake.requests.append(body)
                fake.headers.append(dict(self.headers))
                if fake.mode == "slow":
                    time.sleep(fake.delay)
                if fake.mode == "error":
                    self._send(500, b'{"error": "scripted failure"}')
                elif fake.mode == "garbage":
                    self._send(200, b"<html>bad gateway</html>")
                elif fake.mode == "bad_index":
                    self._send(200, b'{"results": [{"index": 99, "relevance_score": 1.0}]}')
                else:
                    self._send(200, json.dumps({"results": fake.results(body)}).encode())

            def _send(self, status: int, data: bytes) -> None:
                send_json(self, status, data)

        self._server, root = serve(Handler)
        self.url = root + "/v1"
        return self

    def stop(self) -> None:
        """Stop serving (its port then refuses connections)."""
        shutdown(self._server)
