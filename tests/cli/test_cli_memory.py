"""The answer memory through the console script: `ragbot memory list/forget`, hit rate."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import files


def test_memory_list_forget_and_hit_rate(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "dogs.txt"
    doc.write_text(files.TEXT)
    assert cli("ingest", str(doc)).returncode == 0
    asked = "How much is a dog licence renewal?"
    first = json.loads(cli("ask", asked, "--json").stdout)
    again = json.loads(cli("ask", "how much is a Dog Licence renewal", "--json").stdout)
    assert first["outcome"] == "answered" and again["outcome"] == "memory"
    assert "memory:hit" in again["decision_path"] and again["citations"] == first["citations"]

    listed = json.loads(cli("memory", "list", "--json").stdout)
    assert [(e["question"], e["documents"], e["hits"], e["valid"]) for e in listed] == [
        (asked, ["dogs"], 1, True)
    ]
    assert "dogs (1 hits" in cli("memory", "list").stdout
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["memory"] == {"hits": 1, "hit_rate": 0.5}
    off = cli("ask", asked, "--json", extra_env={"MEMORY_ENABLED": "false"})
    assert json.loads(off.stdout)["outcome"] == "answered"  # the setting turns it off

    unknown = cli("memory", "forget", "999")
    assert unknown.returncode == 1 and "no remembered answer #999" in unknown.stderr
    assert cli("memory", "forget").returncode == 2  # neither an id nor --all
    gone = cli("memory", "forget", str(listed[0]["id"]))
    assert gone.returncode == 0 and "forgot 1 remembered answer" in gone.stdout
    assert json.loads(cli("memory", "list", "--json").stdout) == []
    assert json.loads(cli("ask", asked, "--json").stdout)["outcome"] == "answered"
    assert "forgot 1 remembered answers" not in cli("memory", "forget", "--all").stdout
