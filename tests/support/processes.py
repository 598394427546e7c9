"""Real `ragbot` processes for tests and benchmarks: start one on a free port, wait for health.

Where the point is a process dying (SIGKILL, SIGTERM), only a real process will
do: these start `ragbot serve` / `ragbot worker` with the environment given,
and the `start` fixture kills whatever is still running at the end of a test.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

RAGBOT = shutil.which("ragbot", path=str(Path(sys.executable).parent)) or "ragbot"


def free_port() -> int:
    """A local TCP port nobody listens on (now)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_answer(proc: subprocess.Popen[str], check: Callable[[], Any], timeout: float) -> None:
    """`wait_for` a running `ragbot` process's answer; when none comes in time, stop the
    process and fail with the last of what it printed (the output is piped: without
    this a slow or lost first turn leaves nothing to read)."""
    try:
        wait_for(check, timeout)
    except AssertionError as late:
        proc.send_signal(signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        said = (out or "")[-6000:]
        raise AssertionError(f"no answer in {timeout:.0f} s; the process said:\n{said}") from late


def health(port: int, timeout: float = 10) -> int | None:
    """The status `/healthz` answers with (None: nothing listens, or no answer in time)."""
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=timeout).status_code
    except httpx.HTTPError:
        return None


def wait_for(check: Callable[[], Any], timeout: float = 90) -> None:
    """Poll `check` until it is truthy, or fail."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.3)
    raise AssertionError("timed out")


def launch(
    command: str,
    cwd: Path,
    env: dict[str, str],
    output: int | IO[str] = subprocess.PIPE,
) -> tuple[subprocess.Popen[str], int]:
    """`ragbot COMMAND --port P` with `env` over this environment (minus DATABASE_URL), up.

    Returns once `/healthz` answers (or the process ended). `output`: where its
    stdout and stderr go; a file for long runs (a full pipe would block the process).
    """
    port = free_port()
    full_env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    # one turn worker (the default is one per core): the worker path is what every serve
    # test exercises, at half the start-up cost on a 2-core machine running two test files
    full_env.update({"RAGBOT_DATA_DIR": str(cwd / "data"), "TURN_PROCESSES": "1", **env})
    proc = subprocess.Popen(
        [RAGBOT, command, "--port", str(port)],
        env=full_env,
        cwd=cwd,
        stdout=output,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        # generous: on a loaded 2-core machine (four test processes, browsers) a start that
        # takes 20 s alone can take several times that
        wait_for(lambda: health(port) is not None or proc.poll() is not None, timeout=150)
    except AssertionError:
        # a server that never came up must not live on: it would keep the port and write
        # into the database the next tests read
        proc.kill()
        proc.wait()
        raise
    return proc, port


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., tuple[subprocess.Popen[str], int]]]:
    """Start `ragbot COMMAND --port P` in the background; killed at the end if still running.

    `start(command, _output=file, **env)`: output piped unless a file is given.
    """
    started: list[subprocess.Popen[str]] = []

    def run(
        command: str, _output: int | IO[str] = subprocess.PIPE, **env: str
    ) -> tuple[subprocess.Popen[str], int]:
        proc, port = launch(command, tmp_path, env, _output)
        started.append(proc)
        return proc, port

    yield run
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
