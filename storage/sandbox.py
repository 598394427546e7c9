"""Parsing untrusted files in a separate process with memory and time limits.

PDF, DOCX and HTML go through parsers that decompress and build trees: a
crafted file can make them take gigabytes or run for ever. Each such file is
parsed by `storage.parse_worker` under rlimits (address space and CPU) and a
wall-clock timeout, so the worst a file can do is fail with its reason.
OCR (scanned PDF pages, images) needs more memory and time than parsing:
it runs in a parser process of its own, under the OCR limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from storage.chunking import Block
from storage.loaders import UnreadableFileError

SANDBOXED_FORMATS = frozenset({"pdf", "docx", "html", "image"})
OCR_FORMATS = frozenset({"image", "ocr-pdf"})  # run under the OCR limits


@dataclass(frozen=True)
class ParseLimits:
    """Per-file limits of the parser process (PARSE_MEMORY_MB, PARSE_TIMEOUT_SECONDS) and
    its CPU priority (INGEST_NICE: it yields to the serving process); OCR's own
    limits (OCR_MEMORY_MB, OCR_TIMEOUT_SECONDS)."""

    memory_mb: int = 768
    timeout_s: float = 60.0
    nice: int = 0
    ocr_memory_mb: int = 2048
    ocr_timeout_s: float = 600.0


@dataclass(frozen=True)
class ParsedFile:
    """What the parser process sent back."""

    blocks: list[Block]
    pages: int | None
    url: str | None
    scanned: list[int] = field(default_factory=list)  # PDF pages with no text layer
    unread: list[int] = field(default_factory=list)  # pages OCR found nothing on


@dataclass(frozen=True)
class _Bounds:
    """The limits one parser process runs under, and the settings that name them."""

    memory_mb: int
    timeout_s: float
    memory_setting: str
    timeout_setting: str


def _bounds(fmt: str, limits: ParseLimits) -> _Bounds:
    if fmt in OCR_FORMATS:
        return _Bounds(
            limits.ocr_memory_mb, limits.ocr_timeout_s, "OCR_MEMORY_MB", "OCR_TIMEOUT_SECONDS"
        )
    return _Bounds(limits.memory_mb, limits.timeout_s, "PARSE_MEMORY_MB", "PARSE_TIMEOUT_SECONDS")


async def parse_isolated(
    data: bytes, fmt: str, limits: ParseLimits, pages: Sequence[int] = ()
) -> ParsedFile:
    """Blocks, page count and canonical URL of `data`; UnreadableFileError with the reason.

    `fmt` "ocr-pdf" OCRs the PDF's `pages` (those its "pdf" reading found `scanned`).
    """
    bounds = _bounds(fmt, limits)
    cpu_s = max(1, int(bounds.timeout_s))
    # one malloc arena per thread reserves 64 MB of address space each: onnxruntime's
    # threads would spend the address-space limit on reservations, not on the page
    env = {**os.environ, "MALLOC_ARENA_MAX": "2", "OMP_NUM_THREADS": "1"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "storage.parse_worker",
        fmt,
        str(bounds.memory_mb),
        str(cpu_s),
        str(limits.nice),
        ",".join(str(n) for n in pages),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(data), bounds.timeout_s)
    except TimeoutError:
        raise UnreadableFileError(
            f"reading it took longer than {bounds.timeout_s:g} s ({bounds.timeout_setting})"
        ) from None
    finally:
        if process.returncode is None:  # timed out or cancelled: the parser must not linger
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    if process.returncode != 0:
        raise UnreadableFileError(_died(process.returncode or 0, err, bounds))
    try:
        result = json.loads(out)
    except json.JSONDecodeError:
        raise UnreadableFileError("the parser sent no usable result") from None
    if "error" in result:
        raise UnreadableFileError(str(result["error"]))
    blocks = [Block(text, page, heading) for text, page, heading in result["blocks"]]
    return ParsedFile(
        blocks,
        result.get("pages"),
        result.get("url"),
        [int(n) for n in result.get("scanned") or []],
        [int(n) for n in result.get("unread") or []],
    )


def _died(code: int, stderr: bytes, bounds: _Bounds) -> str:
    """Why the parser process ended without a result, in words an admin can act on."""
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        return f"reading it took longer than {bounds.timeout_s:g} s ({bounds.timeout_setting})"
    if b"MemoryError" in stderr or b"bad_alloc" in stderr:
        return (
            f"reading it needs more than {bounds.memory_mb} MB of memory ({bounds.memory_setting})"
        )
    if code < 0:
        return f"the parser crashed on it (signal {-code})"
    return "the parser failed on it"
