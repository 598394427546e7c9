"""`ragbot serve`'s HTTP edges over real sockets: oversized and unsigned webhook bodies,
slow clients, a port already taken."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx

from tests.support.processes import RAGBOT, free_port

SECRET = "s3cret"


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _signed(body: bytes) -> dict[str, str]:
    from slack_sdk.signature import SignatureVerifier

    stamp = str(int(time.time()))
    signature = SignatureVerifier(SECRET).generate_signature(timestamp=stamp, body=body)
    return {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature or "",
    }


def _post_raw(port: int, head: str, chunks: list[bytes], first_wait: float = 0) -> int | str | None:
    """POST `head` then `chunks` until the server answers; its status, "cut" when the
    server closed the connection before taking the whole body and its answer was lost
    with it (None: no answer within 15 s). `first_wait`: how long to wait for an answer
    to the head alone (a refusal by Content-Length comes before the body). A body still
    arriving when the server closes makes its kernel reset the connection, and a reset
    drops an answer not yet read: which of the two the client sees is a race."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        sock.sendall(head.encode())
        sent_all = False
        try:
            for at, chunk in enumerate(chunks):
                if select.select([sock], [], [], first_wait if at == 0 else 0)[0]:
                    break  # answered already: the rest is not wanted
                sock.sendall(chunk)
            else:
                sent_all = True
            answer = sock.recv(4096)
        except OSError:
            return None if sent_all else "cut"
    return int(answer.split()[1]) if answer.startswith(b"HTTP/1.1 ") else None


def _chunked(body: bytes, size: int = 64 * 1024) -> list[bytes]:
    pieces = [body[at : at + size] for at in range(0, len(body), size)]
    return [b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces] + [b"0\r\n\r\n"]


def _closed(sock: socket.socket) -> bool:
    """True once the server closed `sock` (what it answered first is read and dropped)."""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def _trickle(sockets: list[socket.socket], first: bytes, seconds: float) -> float | None:
    """Send `first` on each socket, then one byte a socket every 0.3 s; the seconds until
    the server had closed every one (None: some still open after `seconds`)."""
    for sock in sockets:
        sock.sendall(first)
        sock.setblocking(False)
    began = time.monotonic()
    open_ = list(sockets)
    while time.monotonic() - began < seconds:
        for sock in list(open_):
            if _closed(sock):
                open_.remove(sock)
                continue
            try:
                sock.send(b"x")
            except OSError:
                open_.remove(sock)
        if not open_:
            return time.monotonic() - began
        time.sleep(0.3)
    return None


def test_serve_refuses_big_unsigned_slack_bodies_and_cuts_off_slow_clients(
    start, database_url: str
) -> None:  # type: ignore[no-untyped-def]
    """Big or unsigned webhook bodies: 413/401 before parsing, memory flat, no traceback;
    clients trickling headers or a body are cut off on time; signed events still work."""
    from tests.support.fake_slack import BOT_USER, TOKEN, FakeSlack

    fake = FakeSlack().start()
    try:
        proc, port = start(
            "serve",
            DATABASE_URL=database_url,
            SLACK_BOT_TOKEN=TOKEN,
            SLACK_SIGNING_SECRET=SECRET,
            SLACK_API_BASE_URL=fake.url,
            HTTP_HEADER_TIMEOUT_SECONDS="3",
            HTTP_BODY_TIMEOUT_SECONDS="3",
        )
        url = f"http://127.0.0.1:{port}/slack/events"
        with httpx.Client(timeout=30) as client:
            assert client.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
            huge = b'{"type": "event_callback", "pad": "' + b"x" * (20 * 1024 * 1024) + b'"}'
            head = "POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            # the refusal paths once with small bodies first: what they load the first time
            # (the Slack handler's imports, buffers) is no body held in memory
            small = b'{"type": "event_callback"}'
            client.post(url, content=small)
            _post_raw(port, head + "Transfer-Encoding: chunked\r\n\r\n", _chunked(small))
            before = _rss_kb(proc.pid)
            began = time.monotonic()
            declared = _post_raw(
                port, head + f"Content-Length: {len(huge)}\r\n\r\n", [huge], first_wait=5
            )
            streamed = _post_raw(port, head + "Transfer-Encoding: chunked\r\n\r\n", _chunked(huge))
            took = time.monotonic() - began
            unsigned = client.post(url, content=b'{"type": "event_callback"}')
            garbage = client.post(url, content=b"\xff" * 1000, headers={"X-Slack-Signature": "x"})
            grew_kb = _rss_kb(proc.pid) - before
        # refused before the body was read whole: by its declared length, or mid-stream
        assert declared == 413 and streamed in (413, "cut"), (declared, streamed)
        assert (unsigned.status_code, garbage.status_code) == (401, 401)
        assert took < 20, took
        # each 20 MB body read whole would hold at least 20 MB
        assert grew_kb < 10 * 1024, f"RSS grew by {grew_kb} kB"

        event = {"type": "app_mention", "user": "U1", "text": f"<@{BOT_USER}> hi", "ts": "1.1"}
        event["channel"] = "C1"
        body = json.dumps({"type": "event_callback", "event_id": "Ev1", "event": event}).encode()
        assert httpx.post(url, content=body, headers=_signed(body), timeout=30).status_code == 200

        # slowloris: headers a byte at a time, and a body a byte at a time
        heads = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        bodies = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        slow_body = "POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n"
        try:
            for sock in bodies:
                sock.sendall(slow_body.encode())
            cut_heads = _trickle(heads, b"GET /healthz HTTP/1.1\r\n", 20)
            cut_bodies = _trickle(bodies, b"", 5)
            health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=30).status_code
        finally:
            for sock in heads + bodies:
                sock.close()
        assert cut_heads is not None and cut_heads < 8, cut_heads
        assert cut_bodies is not None, "slow bodies not cut off"
        assert health == 200

        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=90)
        assert proc.returncode == 0, out
        assert "Traceback" not in out, out
    finally:
        fake.stop()


def test_serve_fails_at_once_when_its_port_is_taken(database_url: str, tmp_path: Path) -> None:
    """A port in use: one line, a non-zero exit, no banner (a service manager restarts it)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        DATABASE_URL=database_url, RAGBOT_DATA_DIR=str(tmp_path / "data"), TURN_PROCESSES="1"
    )
    with socket.socket() as held:
        held.bind(("127.0.0.1", port))
        held.listen()
        done = subprocess.run(
            [RAGBOT, "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
        )
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    assert f"cannot listen on 127.0.0.1:{port}" in out, out
    assert "health:" not in out and "Traceback" not in out, out
    assert len(out.strip().splitlines()) == 1, out
