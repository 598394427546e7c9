"""`ragbot serve` shutting down with an answer streaming: the caller is told, the process ends."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx

from storage.embeddings import Embedder
from tests.api.conftest import PLAN, serving_api
from tests.support.fake_openai import FakeOpenAI, Reply


def test_sigterm_ends_open_streams_with_draining_and_the_process_exits(
    tmp_path: Path, database_url: str, embedder: Embedder
) -> None:
    answer = "An adult passport renewal costs 1,300 dollars and takes four working days [1]. " * 8
    fake = FakeOpenAI().start()
    fake.responder = lambda body: (
        Reply(PLAN)
        if "planning step" in str(body["messages"][0]["content"])
        else Reply(answer, pace=0.2)  # about 80 pieces: half a minute of writing
    )
    env = {
        "LLM_BASE_URL": fake.url,
        "LLM_MODEL": "fake-model",
        "LLM_API_KEY": "k",
        "LLM_PLANNER": "always",  # the turn plans with the model, as the timings were set for
        "SHUTDOWN_GRACE_SECONDS": "4",  # room for a loaded machine (parallel tests)
        "TURN_PROCESSES": "1",  # the turn in a worker process: stopped across the pipe
    }
    try:
        with serving_api(tmp_path, database_url, embedder, **env) as served:
            headers = {"Authorization": f"Bearer {served.keys['public']}"}
            question = {"question": "How much does a passport renewal cost?"}
            lines: list[str] = []
            with httpx.stream(
                "POST", f"{served.url}/api/v1/ask/stream", json=question, headers=headers,
                timeout=60,
            ) as response:  # fmt: skip
                for line in response.iter_lines():  # to the end the server gives it
                    lines.append(line)
                    if line == "event: chunk" and "-- SIGTERM --" not in lines:
                        served.proc.send_signal(signal.SIGTERM)
                        lines.append("-- SIGTERM --")
            started = time.monotonic()
            served.proc.communicate(timeout=60)
            assert served.proc.returncode == 0
            assert time.monotonic() - started < 30
        after = lines[lines.index("-- SIGTERM --") :]
        assert "event: error" in after and any('"draining"' in line for line in after)
        assert "event: done" not in after
    finally:
        fake.stop()
