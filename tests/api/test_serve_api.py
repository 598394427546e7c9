"""The API as operators run it: keys from `ragbot apikey`, two `ragbot serve` processes."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

from storage.embeddings import Embedder
from tests.api.conftest import Served
from tests.support.cli_runner import run_in_process
from tests.support.processes import launch


def _ragbot(database_url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`ragbot ARGS` through the console script's entry, in this process (the serving
    processes are real)."""
    env = {**os.environ, "DATABASE_URL": database_url, "RAGBOT_DATA_DIR": str(tmp_path / "d")}
    return run_in_process(args, env, tmp_path)


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


def _answers(database_url: str) -> int:
    engine = create_engine(database_url)
    with engine.connect() as conn:
        count = conn.execute(text("SELECT count(*) FROM messages WHERE role = 'assistant'"))
        answers = int(count.scalar() or 0)
    engine.dispose()
    return answers


def test_two_serve_processes_answer_one_request_each_once(
    served_api: Served, tmp_path: Path, embedder: Embedder
) -> None:
    second, port = launch("serve", tmp_path, {"DATABASE_URL": served_api.database_url})
    try:
        headers = {"Authorization": f"Bearer {served_api.keys['public']}"}
        urls = [served_api.url, f"http://127.0.0.1:{port}"]
        before = _answers(served_api.database_url)
        bodies = []
        for n, base in enumerate(urls):
            call = {**headers, "Idempotency-Key": f"retried-request-{n}-{before}"}
            response = httpx.post(
                f"{base}/api/v1/ask", json={"question": "passport fee?"}, headers=call, timeout=60
            )
            assert response.status_code == 200, response.text
            bodies.append(response.json())
        assert bodies[0]["answer_id"] != bodies[1]["answer_id"]
        # the same call retried against the other process is not answered again: it gets
        # the answer the first process kept
        again = httpx.post(
            f"{urls[1]}/api/v1/ask",
            json={"question": "passport fee?"},
            headers={**headers, "Idempotency-Key": f"retried-request-0-{before}"},
            timeout=60,
        )
        assert again.status_code == 200, again.text
        assert again.json() == bodies[0]
        assert _answers(served_api.database_url) == before + 2
    finally:
        second.terminate()
        second.communicate(timeout=30)
