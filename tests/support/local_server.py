"""Starting and stopping the tests' small local HTTP servers (the fake Slack, Telegram, LLM)."""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5: twenty connections opened at once (a
    # burst's API calls) had their extra SYNs dropped and retried a second later, a delay
    # the real services (behind their load balancers) do not add
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a kept-alive connection the client dropped (a stopped server, a cancelled call)
        # is not an error of the fake: no traceback on stderr for it
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    """Serve `handler` on a free local port from a daemon thread; (server, root URL)."""
    server = _Server(("127.0.0.1", 0), handler)
    server.daemon_threads = True  # a long poll left open never blocks the test run's exit
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def shutdown(server: ThreadingHTTPServer | None) -> None:
    """Stop a server started by `serve` (None: nothing to stop)."""
    if server is not None:
        server.shutdown()
        server.server_close()
