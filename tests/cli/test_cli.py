"""The `ragbot` console script, run through its entry point against the test database
(in this process: the `cli` fixture; as a real process where the process is the point)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from storage.db import head_revision
from tests.cli.conftest import RAGBOT
from tests.support import files, hostile_files


def test_a_folder_of_hostile_files_fails_each_with_its_reason_and_keeps_the_honest_ones(
    cli, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "dogs.txt").write_text(files.TEXT)
    (folder / "big5.txt").write_bytes(
        "護照換發須知：規費新臺幣一千三百元，約需四個工作天。".encode("big5")
    )
    hostile = {
        "zip-bomb.docx": (hostile_files.docx_zip_bomb(300 * 1024 * 1024), "zip bomb"),
        "nested.html": (hostile_files.nested_html(), "nested"),
        "scanned.pdf": (hostile_files.scanned_pdf(), "OCR"),
        "binary.txt": (bytes(range(256)) * 40, "not text"),
        "bad\x1bname.md": (b"# T\n\nbody", "control characters"),
    }
    for name, (data, _) in hostile.items():
        (folder / name).write_bytes(data)
    result = cli("ingest", str(folder), extra_env={"MAX_FILE_MB": "5"})
    assert result.returncode == 1, result.stderr
    assert "summary: 2 added, 0 replaced, 0 unchanged, 5 failed" in result.stdout
    lines = result.stdout.splitlines()
    for name, (_, reason) in hostile.items():
        shown = name.replace("\x1b", "\\x1b")  # control characters are printed escaped
        assert any(shown in line and reason in line for line in lines), (name, result.stdout)
    assert "\x1b" not in result.stdout
    found = cli("search", "護照 規費", "--json", "--top-k", "1")
    assert json.loads(found.stdout)[0]["document"] == "big5"


def test_ingest_search_docs_round_trip(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "dogs.txt").write_text(files.TEXT)
    (folder / "垃圾分類.md").write_text(files.MARKDOWN)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 nonsense")
    result = cli("ingest", str(folder))
    assert result.returncode == 1, result.stderr  # one file failed
    assert "summary: 2 added, 0 replaced, 0 unchanged, 1 failed" in result.stdout
    assert "broken.pdf: the PDF is corrupt" in result.stdout

    again = cli("ingest", str(folder / "dogs.txt"))
    assert again.returncode == 0
    assert "1 unchanged" in again.stdout

    found = cli("search", "厨余什么时候收？", "--json", "--top-k", "2")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert hits[0]["document"] == "垃圾分類"
    assert {"document", "chunk_id", "text", "score", "page"} <= set(hits[0])

    queries = tmp_path / "queries.txt"
    queries.write_text("dog licence fee\n大型家具\n")
    batch = cli("search", "--batch", str(queries), "--json", "--top-k", "1")
    lines = [json.loads(line) for line in batch.stdout.splitlines()]
    assert [line[0]["document"] for line in lines] == ["dogs", "垃圾分類"]

    listed = json.loads(cli("docs", "list", "--json").stdout)
    assert sorted(d["title"] for d in listed) == ["dogs", "垃圾分類"]
    assert cli("docs", "delete", "dogs").returncode == 0
    missing = cli("docs", "delete", "dogs")
    assert missing.returncode == 1
    assert "no document titled 'dogs'" in missing.stderr


def test_ingest_title_language_and_limits(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "x.txt"
    doc.write_text(files.TEXT)
    ok = cli("ingest", str(doc), "--title", "Dog licences", "--language", "en")
    assert ok.returncode == 0 and "'Dog licences'" in ok.stdout
    big = tmp_path / "big.txt"
    big.write_text("word " * 40_000)
    too_big = cli("ingest", str(big))
    assert too_big.returncode == 1 and "over the 0.1 MB limit" in too_big.stdout
    bad_lang = cli("ingest", str(doc), "--language", "fr")
    assert bad_lang.returncode == 2 and "--language must be one of" in bad_lang.stderr
    assert "Traceback" not in bad_lang.stderr
    # a missing file is reported once, and does not count as a second document
    missing = cli("ingest", str(doc), str(tmp_path / "gone.txt"), "--title", "Dog licences")
    assert missing.returncode == 1 and missing.stdout.count("gone.txt") == 1, missing.stdout
    assert "summary: 0 added, 0 replaced, 1 unchanged, 1 failed" in missing.stdout


def test_forms_commands(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pdf = tmp_path / "ps-11.pdf"
    pdf.write_bytes(files.make_pdf(["Form PS-11"]))
    added = cli(
        "forms",
        "add",
        "Passport form PS-11",
        "--url",
        "https://forms.example.org/ps-11",
        "--file",
        str(pdf),
        "--alias",
        "護照申請書",
        "--alias",
        "PS-11",
        "--language",
        "en",
    )
    assert added.returncode == 0, added.stderr
    assert "added form" in added.stdout
    bad = cli("forms", "add", "Broken form", "--url", "not a link")
    assert bad.returncode != 0 and "error:" in bad.stderr and "unexpected" not in bad.stderr
    replaced = cli("forms", "add", "Passport form PS-11", "--url", "https://example.org/new")
    assert "replaced form" in replaced.stdout
    forms = json.loads(cli("forms", "list", "--json").stdout)
    assert forms == [
        {
            "name": "Passport form PS-11",
            "url": "https://example.org/new",
            "aliases": [],
            "language": None,
            "file": None,
            "collection": "public",
        }
    ]
    bad = cli("forms", "add", "Nothing")
    assert bad.returncode == 2 and "needs --url or --file" in bad.stderr
    assert cli("forms", "delete", "Passport form PS-11").returncode == 0
    assert cli("forms", "delete", "Passport form PS-11").returncode == 1


def test_db_upgrade_and_errors(cli) -> None:  # type: ignore[no-untyped-def]
    up = cli("db", "upgrade")
    assert up.returncode == 0 and f"revision {head_revision()}" in up.stdout  # the newest
    unknown = cli("frobnicate")
    assert unknown.returncode != 0 and "No such command" in unknown.stderr
    no_query = cli("search")
    assert no_query.returncode == 2 and "give a QUERY or --batch FILE" in no_query.stderr


@pytest.mark.parametrize("scheme", ["postgres://", "postgresql://", "postgresql+psycopg://"])
def test_the_database_url_a_managed_provider_hands_out_works(
    cli, database_url: str, scheme: str
) -> None:  # type: ignore[no-untyped-def]
    # managed Postgres (Heroku, Render, Supabase…) gives `postgres://`; libpq `postgresql://`
    given = scheme + database_url.split("://", 1)[1]
    result = cli("db", "current", extra_env={"DATABASE_URL": given})
    assert result.returncode == 0, result.stderr
    assert f"database at revision {head_revision()}" in result.stdout
    assert "NoSuchModuleError" not in result.stderr


@pytest.mark.parametrize("command", ["ask", "search"])
@pytest.mark.parametrize("question", ["", "   \t "])
def test_an_empty_question_is_an_error_not_an_answer(
    cli, tmp_path: Path, command: str, question: str
) -> None:  # type: ignore[no-untyped-def]
    result = cli(command, question)
    assert result.returncode == 2 and result.stdout == ""
    [line] = result.stderr.strip().splitlines()  # one clear line, no stack trace
    assert line.startswith("error: the ") and "empty" in line
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n")
    from_file = cli(command, "--batch", str(blank))
    assert from_file.returncode == 2 and "error: no " in from_file.stderr


def test_unreachable_database_is_a_clear_error(tmp_path: Path) -> None:
    env = {**os.environ, "DATABASE_URL": "postgresql://ragbot:hunter2@127.0.0.1:1/ragbot"}
    result = subprocess.run(
        [RAGBOT, "docs", "list"], env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert result.returncode == 2
    assert "cannot reach the database" in result.stderr
    assert "hunter2" not in result.stderr and "Traceback" not in result.stderr


def test_search_and_listings_print_document_text_literally(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = tmp_path / "markup.md"
    doc.write_text(
        "# Markup\n\nThe closing tag [/x] and [bold]loud[/bold] appear in this notice.\n"
    )
    assert cli("ingest", str(doc), "--title", "[red]Notice[/red]").returncode == 0
    found = cli("search", "closing tag notice")
    assert found.returncode == 0, found.stderr
    assert "[/x]" in found.stdout and "[bold]loud[/bold]" in found.stdout
    assert "[red]Notice[/red]" in found.stdout
    listed = cli("docs", "list")
    assert listed.returncode == 0 and "[red]Notice" in listed.stdout  # (the cell may wrap)


@pytest.mark.parametrize(
    "token",
    [
        "123456:short",  # cut when pasted
        "AAE-test_Token-x0123456789abcdefghijkl",  # the bot id left out
        '"123456:AAE-test_Token-x0123456789abcdefghijkl"',  # quotes kept in a .env
        "123456:AAE-test Token-x0123456789abcdefghijkl",  # a space
    ],
)
def test_serve_with_a_malformed_telegram_token_stops_in_one_line(cli, token: str) -> None:  # type: ignore[no-untyped-def]
    done = cli("serve", "--port", "0", extra_env={"TELEGRAM_BOT_TOKEN": token})
    assert done.returncode != 0
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "TELEGRAM_BOT_TOKEN" in lines[0] and "Traceback" not in done.stderr
    assert token not in done.stdout + done.stderr
    secret_part = token.strip('"').partition(":")[2] or token
    assert secret_part not in done.stdout + done.stderr


@pytest.mark.parametrize("proxies", ["garbage", "10.0.0.0/8,10.0.0.300", "127.0.0.1 10.0.0.1"])
def test_serve_with_a_malformed_trusted_proxy_stops_in_one_line(cli, proxies: str) -> None:  # type: ignore[no-untyped-def]
    done = cli("serve", "--port", "0", extra_env={"API_TRUSTED_PROXIES": proxies})
    assert done.returncode != 0
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "API_TRUSTED_PROXIES" in lines[0] and "unexpected" not in lines[0]


def test_serve_on_a_port_in_use_fails_in_one_error_line(cli_process) -> None:  # type: ignore[no-untyped-def]
    # a real process: what a supervisor starting `ragbot serve` sees
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = cli_process("serve", "--host", "127.0.0.1", "--port", str(port))
    assert done.returncode != 0, done.stderr  # a supervisor must see a failed start
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and f"cannot listen on 127.0.0.1:{port}" in errors[0], done.stderr
    assert "Traceback" not in done.stderr


def test_the_in_process_runs_print_what_the_script_prints(cli, cli_process, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # the `cli` fixture stands in for the console script: same output, streams, exit codes
    doc = tmp_path / "long.md"
    doc.write_text("# Opening hours\n\nThe service centre opens at nine on Saturdays.\n")
    title = "Service centre opening hours on weekdays, Saturdays and public holidays [2026]"
    # the script's own ingest: worker processes (one per core) chunk and embed
    made = cli_process("ingest", str(doc), "--title", title)
    assert made.returncode == 0 and "summary: 1 added" in made.stdout, made.stdout + made.stderr
    for args in (
        ("docs", "list"),
        ("frobnicate",),
        ("search", " "),
        ("ingest", str(doc), "--title", title),
        ("search", "when does the service centre open on Saturday", "--top-k", "1"),
    ):
        here, there = cli(*args), cli_process(*args)
        assert (here.returncode, here.stdout, here.stderr) == (
            there.returncode,
            there.stdout,
            there.stderr,
        ), args
