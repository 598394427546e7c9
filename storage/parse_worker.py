"""The parser process: reads one file on stdin, writes its text blocks as JSON on stdout.

Run by storage.sandbox as `python -m storage.parse_worker FORMAT MEMORY_MB CPU_S [NICE [PAGES]]`.
FORMAT `pdf` reads the text layer and lists the pages without one; `ocr-pdf`
OCRs those PAGES (comma-separated, from 1); `image` OCRs an image file. OCR runs
in a process of its own (with the OCR limits), so reading a PDF's text layer keeps
the tighter parser limits.
Its limits are set before any parser is imported, so a decompression bomb or a
runaway parser ends this process, never the one serving users.
"""

from __future__ import annotations

import json
import os
import resource
import sys


def _limit(memory_mb: int, cpu_s: int, nice: int) -> None:
    if nice:  # below the serving process in the CPU scheduler's eyes
        os.nice(nice)
    memory = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    # the soft limit sends SIGXCPU; the hard one, a second later, SIGKILL
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main() -> int:
    """Parse stdin as `sys.argv[1]`; the outcome is one JSON object on stdout."""
    fmt, memory_mb, cpu_s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    _limit(memory_mb, cpu_s, int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    pages_asked = [int(n) for n in sys.argv[5].split(",") if n] if len(sys.argv) > 5 else []
    data = sys.stdin.buffer.read()
    from storage.loaders import UnreadableFileError

    try:
        out = _parse(data, fmt, pages_asked)
    except UnreadableFileError as exc:
        out = {"error": str(exc)}
    except MemoryError:
        out = {"error": _too_big(fmt, memory_mb)}
    except RecursionError:
        out = {"error": "its structure is nested too deeply to read"}
    except Exception as exc:  # any other parser failure: the file, not the process, is bad
        if "bad_alloc" in str(exc):  # onnxruntime's C++ out-of-memory, under the rlimit
            out = {"error": _too_big(fmt, memory_mb)}
        else:
            kind = fmt.removeprefix("ocr-").upper()
            out = {"error": f"the {kind} is corrupt or unreadable ({type(exc).__name__})"}
    sys.stdout.write(json.dumps(out, ensure_ascii=True))
    return 0


def _too_big(fmt: str, memory_mb: int) -> str:
    setting = "OCR_MEMORY_MB" if fmt in ("ocr-pdf", "image") else "PARSE_MEMORY_MB"
    return f"reading it needs more than {memory_mb} MB of memory ({setting})"


def _parse(data: bytes, fmt: str, pages_asked: list[int]) -> dict[str, object]:
    """The JSON-ready outcome of reading `data` as `fmt`."""
    from storage import scans
    from storage.loaders import UnreadableFileError, canonical_url, load_blocks

    if not data.strip():
        raise UnreadableFileError("the file is empty")
    if fmt == "pdf":
        scan = scans.pdf_text(data)
    elif fmt == "ocr-pdf":
        scan = scans.ocr_pdf(data, pages_asked)
    elif fmt == "image":
        scan = scans.ocr_image(data)
    else:
        blocks, pages = load_blocks(data, fmt)
        scan = scans.Scan(blocks, pages)
    return {
        "blocks": [[b.text, b.page, b.heading] for b in scan.blocks],
        "pages": scan.pages,
        "url": canonical_url(data) if fmt == "html" else None,
        "scanned": scan.scanned,
        "unread": scan.unread,
    }


if __name__ == "__main__":
    sys.exit(main())
