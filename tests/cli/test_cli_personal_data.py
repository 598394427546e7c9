"""`ragbot ingest` and `ragbot upload` refuse personal data bound for public unless allowed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from storage.db import Database
from storage.models import Upload
from storage.repositories import uploads as uploads_repo
from tests.support import files


def test_ingest_into_public_refuses_personal_data_unless_allowed(
    cli,
    tmp_path: Path,
) -> None:  # type: ignore[no-untyped-def]
    contacts = tmp_path / "contacts.md"
    contacts.write_text("# Permits\n\nQuestions: write to jane.doe@example.org any day.\n")
    refused = cli("ingest", str(contacts))
    assert refused.returncode == 1
    assert "personal data found (email=1)" in refused.stdout
    assert "line 3: email j*******@example.org" in refused.stdout
    assert "jane.doe" not in refused.stdout + refused.stderr
    assert "--allow-personal-data" in refused.stdout
    assert json.loads(cli("docs", "list", "--json").stdout) == []
    # internal documents are not screened; public ones are with the flag
    assert cli("ingest", str(contacts), "--collection", "internal").returncode == 0
    contacts.write_text("# Permits\n\nWrite to jane.doe@example.org, or call 02-2345-6789.\n")
    allowed = cli("ingest", str(contacts), "--title", "Permit desk", "--allow-personal-data")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    listed = {d["title"]: d["collection"] for d in json.loads(cli("docs", "list", "--json").stdout)}
    assert listed == {"contacts": "internal", "Permit desk": "public"}


def test_upload_into_public_refuses_personal_data_unless_allowed(
    cli,
    tmp_path: Path,
) -> None:  # type: ignore[no-untyped-def]
    notice = tmp_path / "notice.txt"
    notice.write_text("申請人：王小明\n身分證字號：A123456789\n")
    refused = cli("upload", str(notice))
    assert refused.returncode == 1
    assert "personal data found (id=1)" in refused.stderr and "A1******89" in refused.stderr
    assert json.loads(cli("jobs", "--json").stdout) == []
    queued = cli("upload", str(notice), "--allow-personal-data")
    assert queued.returncode == 0 and "queued upload #" in queued.stdout, queued.stderr
    assert [j["status"] for j in json.loads(cli("jobs", "--json").stdout)] == ["queued"]


def test_every_collection_citizens_read_is_screened_and_internal_is_not(
    cli,
    tmp_path: Path,
) -> None:  # type: ignore[no-untyped-def]
    citizens = {"TELEGRAM_COLLECTIONS": "public,notices"}
    notice = tmp_path / "notice.txt"
    notice.write_text("Applicant 王小明, ID A123456789, card 4111 1111 1111 1111.\n")
    refused = cli("upload", str(notice), "--collection", "notices", extra_env=citizens)
    assert refused.returncode == 1
    assert "bound for notices, readable by citizens" in refused.stderr
    assert "personal data found (id=1, card=1)" in refused.stderr
    assert json.loads(cli("jobs", "--json").stdout) == []
    held = cli("ingest", str(notice), "--collection", "notices", extra_env=citizens)
    assert held.returncode == 1 and "bound for notices, readable by citizens" in held.stdout
    # the file name is screened like the text: a clean text under a name with an ID
    named = tmp_path / "王小明_A123456789.txt"
    named.write_text("Passport renewal: bring your old passport and one photo.\n")
    by_name = cli("ingest", str(named), "--collection", "notices", extra_env=citizens)
    assert by_name.returncode == 1
    assert "title or file name: id A1******89" in by_name.stdout
    assert json.loads(cli("docs", "list", "--json").stdout) == []
    # internal is read by neither citizens nor guests: not screened
    assert (
        cli("ingest", str(notice), "--collection", "internal", extra_env=citizens).returncode == 0
    )
    listed = json.loads(cli("docs", "list", "--json").stdout)
    assert [(d["title"], d["collection"]) for d in listed] == [("notice", "internal")]


async def _held_upload(db: Database) -> int:
    """A chat upload the job held for personal data, as the job leaves it."""
    async with db.transaction() as session:
        return await uploads_repo.add_upload(
            session,
            Upload(
                platform="telegram",
                user_id="42",
                conversation_key="42",
                file_name="notice.txt",
                title="notice",
                collection="public",
                size_bytes=30,
                data="身分證字號：A123456789\n".encode(),
                status="held",
                reason="personal data found (id=1)",
            ),
        )


async def test_the_operator_settles_a_held_upload_from_the_console(
    cli,
    db: Database,
) -> None:  # type: ignore[no-untyped-def]
    cancel_id = await _held_upload(db)
    publish_id = await _held_upload(db)
    cancelled = cli("held", "cancel", str(cancel_id))
    assert cancelled.returncode == 0 and "cancelled" in cancelled.stdout, cancelled.stderr
    again = cli("held", "cancel", str(cancel_id))  # no longer held: says so, changes nothing
    assert again.returncode == 1 and "no held upload" in again.stderr
    published = cli("held", "publish", str(publish_id))
    assert published.returncode == 0 and "queued" in published.stdout, published.stderr
    assert cli("held", "delete", str(publish_id)).returncode == 2
    async with db.transaction() as session:
        gone = await uploads_repo.get_upload(session, cancel_id, with_data=True)
        queued = await uploads_repo.get_upload(session, publish_id)
        actions = (
            (
                await session.execute(
                    text("SELECT action FROM audit_log WHERE action LIKE 'upload:%' ORDER BY id")
                )
            )
            .scalars()
            .all()
        )
    assert gone is not None and gone.status == "cancelled" and gone.data is None
    assert queued is not None and queued.status == "queued" and queued.job_id is not None
    assert actions == ["upload:cancelled", "upload:publish_anyway"]


def _wrapped_phone_file(tmp_path: Path, suffix: str) -> Path:
    """A notice whose phone number extraction wraps across a line break (`0912-⏎345-678`)."""
    path = tmp_path / f"desk{suffix}"
    if suffix == ".txt":
        path.write_text("Permit desk\nCall 0912-\n345-678 on weekdays.\n")
    elif suffix == ".pdf":
        path.write_bytes(files.make_pdf(["Permit desk\nCall 0912-\n345-678 on weekdays."]))
    else:
        import docx

        document = docx.Document()
        paragraph = document.add_paragraph("Call 0912-")
        paragraph.add_run().add_break()  # a line break inside the paragraph
        paragraph.add_run("345-678 on weekdays.")
        document.save(str(path))
    return path


@pytest.mark.parametrize("suffix", [".txt", ".pdf", ".docx"])
def test_upload_refuses_a_phone_number_wrapped_across_lines(
    cli,
    tmp_path: Path,
    suffix: str,
) -> None:  # type: ignore[no-untyped-def]
    path = _wrapped_phone_file(tmp_path, suffix)
    refused = cli("upload", str(path), "--collection", "public")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "personal data found (phone=1)" in refused.stderr
    assert "345-678" not in refused.stdout + refused.stderr
    assert json.loads(cli("jobs", "--json").stdout) == []
    assert json.loads(cli("docs", "list", "--json").stdout) == []


def test_ingest_screens_the_canonical_url_stored_with_a_page(
    cli,
    tmp_path: Path,
) -> None:  # type: ignore[no-untyped-def]
    page = tmp_path / "permits.html"
    page.write_text(
        '<html><head><link rel="canonical" href="https://city.example/permits?contact='
        'jane.roe@example.com"></head><body><h1>Permits</h1><p>Apply at the desk.</p></body></html>'
    )
    refused = cli("ingest", str(page))
    assert refused.returncode == 1 and "personal data found (email=1)" in refused.stdout
    assert json.loads(cli("docs", "list", "--json").stdout) == []


def test_a_ragbot_api_key_in_a_question_is_masked_in_the_trace(
    cli,
    tmp_path: Path,
) -> None:  # type: ignore[no-untyped-def]
    key = "rbk_TESTONLYnotAkey000000000000000000000000"
    asked = cli("ask", f"my key is {key}, why does the web chat say 401?", "--json")
    assert asked.returncode == 0, asked.stderr
    assert key[4:] not in asked.stdout + asked.stderr
    turns = json.loads(cli("traces", "--last", "1", "--json").stdout)
    assert turns[0]["question"] == "my key is [API_KEY], why does the web chat say 401?"
