"""A small local server that speaks the Langfuse ingestion API the SDK uses.

Spans arrive as OTLP/HTTP protobuf at `/api/public/otel/v1/traces` (gzip by
default), scores as JSON lists at `/api/public/scores`. The real langfuse
SDK is pointed at it; it records what arrived, decoded, or plays a broken
backend (HTTP 500, or a request that never gets an answer).
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.support.local_server import serve, shutdown


@dataclass
class Span:
    """One received span, attributes decoded to Python values."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]

    def json_attr(self, key: str) -> Any:
        """An attribute the SDK stores JSON-encoded (input, output, metadata)."""
        value = self.attributes.get(key)
        return json.loads(value) if isinstance(value, str) else value


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


@dataclass
class FakeLangfuse:
    """What the server received; `mode` is "ok", "fail" (500) or "hang"."""

    mode: str = "ok"
    spans: list[Span] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)
    requests: int = 0
    url: str = ""
    _server: ThreadingHTTPServer | None = None
    _release: threading.Event = field(default_factory=threading.Event)

    def start(self) -> FakeLangfuse:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fake.requests += 1
                if fake.mode == "hang":
                    fake._release.wait(60)
                    return
                if fake.mode == "fail":
                    self._send(500, b'{"message": "down"}')
                    return
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path.startswith("/api/public/otel/v1/traces"):
                    fake._record_spans(body)
                    self._send(200, b"", "application/x-protobuf")
                elif self.path.startswith("/api/public/scores"):
                    fake.scores += json.loads(body)  # a batch: a JSON list of scores
                    self._send(202, b'{"message": "Accepted"}')
                else:
                    self._send(404, b"{}")

            def _send(self, status: int, data: bytes, kind: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server, self.url = serve(Handler)
        return self

    def _record_spans(self, body: bytes) -> None:
        request = ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for s in scope.spans:
                    attrs = {a.key: _value(a.value) for a in s.attributes}
                    self.spans.append(
                        Span(
                            s.trace_id.hex(),
                            s.span_id.hex(),
                            s.parent_span_id.hex(),
                            s.name,
                            s.start_time_unix_nano,
                            s.end_time_unix_nano,
                            attrs,
                        )
                    )

    def trace(self, trace_id: str) -> list[Span]:
        """The received spans of one trace."""
        return [s for s in self.spans if s.trace_id == trace_id]

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> bool:
        """Wait until `predicate(self)` holds (the SDK exports in the background)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return True
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        self._release.set()
        shutdown(self._server)
