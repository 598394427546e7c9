"""Asking through the console script: `ragbot ask`, `ragbot demo`, `ragbot chat`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.cli.conftest import RAGBOT
from tests.support import files


def test_ask_prints_json_and_batches(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "dogs.txt"
    doc.write_text(files.TEXT)
    assert cli("ingest", str(doc)).returncode == 0
    one = cli("ask", "How much is a dog licence?", "--json")
    assert one.returncode == 0, one.stderr
    turn = json.loads(one.stdout)
    assert "300 dollars" in turn["answer"]
    assert turn["citations"][0]["document"] == "dogs"
    assert {
        "language",
        "intent",
        "forms",
        "decision_path",
        "retrieval_loops",
        "llm_calls",
        "trace_id",
        "timings_ms",
    } <= set(turn)
    questions = tmp_path / "q.txt"
    questions.write_text("hello\nHow much is a dog licence?\n")
    batch = cli("ask", "--batch", str(questions), "--json")
    turns = [json.loads(line) for line in batch.stdout.splitlines()]
    # the dog-licence question was answered above: the batch gets it from the answer memory
    assert [(t["intent"], t["outcome"]) for t in turns] == [
        ("greeting", "smalltalk"),
        ("memory", "memory"),
    ]
    plain = cli("ask", "How much is a dog licence?")
    assert "[1] dogs" in plain.stdout


def test_demo_ingests_samples_and_answers(cli) -> None:  # type: ignore[no-untyped-def]
    first = cli("demo")
    assert first.returncode == 0, first.stderr
    assert first.stdout.count("added") == 5
    assert "forms: 2 stored" in first.stdout
    # the scripted conversation: cited answers in three languages, a follow-up,
    # a form link, a refusal and a thank-you
    assert "1,300 dollars" in first.stdout and "[1] passport-renewal" in first.stdout
    assert "4 working days" in first.stdout  # the follow-up "how long does it take?"
    assert "請携带身分證" not in first.stdout and "请携带身分证" in first.stdout
    # the Traditional reader sees the Simplified document's title in Traditional
    assert "[1] 圖書館借書證" in first.stdout and "二十冊" in first.stdout
    assert "https://forms.example.org/ps-11" in first.stdout
    assert "[1] office-hours" in first.stdout
    assert "our documents don't answer this" in first.stdout
    assert "不客氣" in first.stdout
    again = cli("demo")
    assert again.returncode == 0 and again.stdout.count("unchanged") == 5


def test_chat_keeps_the_conversation(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "dogs.txt"
    doc.write_text(files.TEXT + "\nLost dog tags are replaced for 50 dollars.\n")
    assert cli("ingest", str(doc)).returncode == 0
    session = cli("chat", stdin="How much is a dog licence?\nand what about that tag?\n/quit\n")
    assert session.returncode == 0, session.stderr
    assert "300 dollars" in session.stdout
    assert "50 dollars" in session.stdout
    assert session.stdout.count("[1] dogs") == 2


def test_a_chinese_question_is_answered_from_the_english_sample_page(cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("demo").returncode == 0
    asked = cli("ask", "護照換發要多少錢？", "--json")
    assert asked.returncode == 0, asked.stderr
    turn = json.loads(asked.stdout)
    assert turn["citations"] and turn["citations"][0]["document"] == "passport-renewal"
    # the English page's own sentence, under a lead in the asker's language naming its language
    assert "以下摘自英文文件《passport-renewal》：" in turn["answer"]
    assert "1,300 dollars" in turn["answer"]


def test_ask_into_a_closed_pipe_ends_quietly(database_url: str, db, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # `ragbot ask ... | head`: the reader leaves before the answer is written
    env = {**os.environ, "DATABASE_URL": database_url, "RAGBOT_DATA_DIR": str(tmp_path / "d")}
    process = subprocess.Popen(
        [RAGBOT, "ask", "How much is a dog licence?", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read()
    process.wait(timeout=120)
    assert "BrokenPipe" not in errors and "error:" not in errors, errors
