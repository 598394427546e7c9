"""The RERANK_* settings reach the graph: `ragbot ask` against a fake `/rerank` server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import files
from tests.support.fake_rerank import FakeRerank


def test_ask_reranks_only_when_rerank_base_url_is_set(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "dogs.txt"
    doc.write_text(files.TEXT)
    assert cli("ingest", str(doc)).returncode == 0
    fake = FakeRerank(prefer="300 dollars").start()
    # every turn runs in full (not served again from the answer memory)
    env = {"MEMORY_ENABLED": "false", "RERANK_MODEL": "m", "RERANK_API_KEY": "rk-cli-key"}
    try:
        unset = cli("ask", "How much is a dog licence?", "--json", extra_env=env)
        assert fake.requests == []
        used = cli(
            "ask",
            "How much is a dog licence?",
            "--json",
            extra_env={**env, "RERANK_BASE_URL": fake.url},
        )
    finally:
        fake.stop()
    assert unset.returncode == 0 and used.returncode == 0, used.stderr
    plain, turn = json.loads(unset.stdout), json.loads(used.stdout)
    assert not any(s.startswith("rerank") for s in plain["decision_path"])
    assert "rerank:used" in turn["decision_path"] and "300 dollars" in turn["answer"]
    assert fake.requests[0]["model"] == "m"
    assert fake.headers[0]["Authorization"] == "Bearer rk-cli-key"
    assert "rk-cli-key" not in used.stdout + used.stderr
