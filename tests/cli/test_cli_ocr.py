"""Scans through the console script: an image-only PDF and a photo of a page are read
by OCR, answered from and cited; a page or image with nothing readable is named."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import scans


def test_scanned_pdf_and_png_are_read_answered_and_cited(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    (folder / "permits.pdf").write_bytes(
        scans.scanned_pdf(
            [
                "Bicycle racks are on the north side of the hall.",  # a text layer
                ["Parking permits cost 42 dollars a year.", "Renew them at the front desk."],
                None,  # a blank scanned page
            ]
        )
    )
    (folder / "library.png").write_bytes(
        scans.text_image(["Library cards are free for residents.", "Bring a utility bill."])
    )
    (folder / "blank.png").write_bytes(scans.blank_image())
    result = cli("ingest", str(folder))
    assert result.returncode == 1, result.stderr  # the blank image failed
    assert "summary: 2 added, 0 replaced, 0 unchanged, 1 failed" in result.stdout
    lines = result.stdout.splitlines()
    pdf_line = next(line for line in lines if "permits.pdf" in line)
    assert "no readable text on page(s) 3" in pdf_line, result.stdout
    assert any(
        "blank.png" in line and "no readable text was found in the image" in line for line in lines
    ), result.stdout

    asked = cli("ask", "How much does a parking permit cost?", "--json")
    assert asked.returncode == 0, asked.stderr
    turn = json.loads(asked.stdout)
    assert "42 dollars" in turn["answer"], turn["answer"]
    assert turn["citations"][0]["document"] == "permits"
    assert turn["citations"][0]["page"] == 2, turn["citations"]

    card = json.loads(cli("ask", "Are library cards free for residents?", "--json").stdout)
    assert "free" in card["answer"], card["answer"]
    assert card["citations"][0]["document"] == "library"
