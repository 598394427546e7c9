"""Starting and stopping the tests' small local HTTP servers (the fake Slack, Telegram, LLM)."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5: twenty connections opened at once (a
    # burst's API calls) had their extra SYNs dropped and retried a second later, a delay
    # the real services (behind their load balancers) do not add
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        # the connections clients keep alive: a stopped server closes them, as a server
        # that went down would (a pooled client must not go on being answered)
        self.open_connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    def get_request(self) -> tuple[socket.socket, Any]:
        request, address = super().get_request()
        with self._connections_lock:
            self.open_connections.add(request)
        return request, address

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self.open_connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._connections_lock:
            connections, self.open_connections = self.open_connections, set()
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

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


def send_json(handler: BaseHTTPRequestHandler, status: int, data: bytes) -> None:
    """Answer a request with a JSON body; a client that already left is no error (it gave
    up waiting: a timeout test, a long poll), and its connection is closed."""
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        handler.close_connection = True


def shutdown(server: ThreadingHTTPServer | None) -> None:
    """Stop a server started by `serve` (None: nothing to stop)."""
    if server is not None:
        server.shutdown()
        server.server_close()
        if isinstance(server, _Server):
            server.close_connections()
