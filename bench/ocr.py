"""OCR quality and speed on generated page images: character error rate and pages/s.

    python -m bench.ocr [--out bench/data/ocr.json]

Pages are printed in DejaVu Sans (English; no CJK font is assumed), rendered
into an image-only PDF and read the way ingestion reads a scan: pypdfium2 at
200 dpi, then storage.ocr, in this process (no sandbox: the figure is the OCR's).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

LINES = [
    "Parking permits cost 42 dollars a year and are renewed at the front desk.",
    "Library cards are free for residents who bring a utility bill.",
    "Dog licences cost 300 dollars; the office is open from 9 am to 5 pm.",
    "Passport renewal takes four working days and costs 1,300 dollars.",
    "Recycling is collected on Tuesdays; bulky waste by appointment only.",
]


def distance(a: str, b: str) -> int:
    """Levenshtein distance of two strings."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def _pages() -> list[tuple[str, list[str]]]:
    """(name, printed lines) of each benchmark page."""
    return [
        ("one line", LINES[:1]),
        ("three lines", LINES[:3]),
        ("five lines", LINES),
        ("five lines, small print", LINES),
    ]


def main() -> None:
    """Read each page, print a table and write the figures as JSON."""
    import io

    from fpdf import FPDF

    from storage.ocr import engine, pdf_page_images, read_image
    from tests.support import scans

    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="bench/data/ocr.json")
    args = parser.parse_args()
    started = time.perf_counter()
    engine()
    load_s = time.perf_counter() - started
    rows: list[dict[str, Any]] = []
    for name, lines in _pages():
        size = 18 if "small" in name else 28
        document = FPDF(format=(120, 50))
        document.add_page()
        picture = scans.text_image(lines, size=size, width=1400)  # no line runs off the page
        document.image(io.BytesIO(picture), x=0, y=0, w=120)
        pdf = bytes(document.output())
        t = time.perf_counter()
        (_, image), *_ = list(pdf_page_images(pdf, [1]))
        text = read_image(image)
        seconds = time.perf_counter() - t
        truth = " ".join(lines)
        got = " ".join(text.split())  # lines and a heading's blank lines alike
        cer = distance(got, truth) / len(truth)
        rows.append({"page": name, "chars": len(truth), "cer": round(cer, 4), "seconds": seconds})
    print(f"engine load: {load_s:.1f} s")
    print(f"{'page':<26}{'chars':>6}{'CER':>8}{'s/page':>8}")
    for r in rows:
        print(f"{r['page']:<26}{r['chars']:>6}{r['cer']:>8.2%}{r['seconds']:>8.2f}")
    total = sum(r["seconds"] for r in rows)
    print(f"pages/s: {len(rows) / total:.2f}")
    out = {"engine_load_s": load_s, "pages": rows, "pages_per_s": len(rows) / total}
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
