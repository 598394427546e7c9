"""The API as operators run it: keys from `ragbot apikey`, two `ragbot serve` processes."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

from storage.embeddings import Embedder
from tests.api.conftest import PLAN, Served, serving_api
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.processes import RAGBOT, launch


def _ragbot(database_url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url, "RAGBOT_DATA_DIR": str(tmp_path / "d")}
    return subprocess.run(
        [RAGBOT, *args], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path
    )


def test_apikey_create_list_revoke_as_an_operator_uses_them(
    served_api: Served, tmp_path: Path
) -> None:
    made = _ragbot(
        served_api.database_url, tmp_path, "apikey", "create", "--name", "portal",
        "--collections", "public", "--rate", "30",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("rbk_") and "shown once" in made.stderr.lower()
    listed = _ragbot(served_api.database_url, tmp_path, "apikey", "list")
    assert "portal" in listed.stdout and key not in listed.stdout and key[:10] in listed.stdout
    taken = _ragbot(
        served_api.database_url, tmp_path, "apikey", "create", "--name", "portal",
        "--collections", "public",
    )  # fmt: skip
    assert taken.returncode == 2 and "exists" in taken.stderr and "Traceback" not in taken.stderr
    bad = _ragbot(
        served_api.database_url, tmp_path, "apikey", "create", "--name", "x",
        "--collections", "Public Docs",
    )  # fmt: skip
    assert bad.returncode == 2 and "bad collection name" in bad.stderr
    ask = {"question": "passport fee?"}
    headers = {"Authorization": f"Bearer {key}"}
    url = f"{served_api.url}/api/v1/ask"
    assert httpx.post(url, json=ask, headers=headers, timeout=60).status_code == 200
    revoked = _ragbot(served_api.database_url, tmp_path, "apikey", "revoke", "portal")
    assert revoked.returncode == 0
    time.sleep(5.5)  # a check is cached for at most 5 s
    refused = httpx.post(url, json=ask, headers=headers, timeout=60)
    assert refused.status_code == 401
    assert "revoked" in _ragbot(served_api.database_url, tmp_path, "apikey", "list").stdout


def test_two_serve_processes_answer_one_request_each_once(
    served_api: Served, tmp_path: Path, embedder: Embedder
) -> None:
    second, port = launch("serve", tmp_path, {"DATABASE_URL": served_api.database_url})
    try:
        headers = {"Authorization": f"Bearer {served_api.keys['public']}"}
        urls = [served_api.url, f"http://127.0.0.1:{port}"]
        bodies = []
        for n, base in enumerate(urls):
            call = {**headers, "Idempotency-Key": f"req-{n}"}
            response = httpx.post(
                f"{base}/api/v1/ask", json={"question": "passport fee?"}, headers=call, timeout=60
            )
            assert response.status_code == 200, response.text
            bodies.append(response.json())
        assert bodies[0]["answer_id"] != bodies[1]["answer_id"]
        # the same call retried against the other process is not answered again
        again = httpx.post(
            f"{urls[1]}/api/v1/ask",
            json={"question": "passport fee?"},
            headers={**headers, "Idempotency-Key": "req-0"},
            timeout=60,
        )
        assert again.status_code == 409
        engine = create_engine(served_api.database_url)
        with engine.connect() as conn:
            answers = conn.execute(
                text("SELECT count(*) FROM messages WHERE role = 'assistant'")
            ).scalar()
        engine.dispose()
        assert answers == 2
    finally:
        second.terminate()
        second.communicate(timeout=30)


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
        "SHUTDOWN_GRACE_SECONDS": "2",
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
