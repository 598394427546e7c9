"""Parsing untrusted files in a separate process with memory and time limits.

PDF, DOCX and HTML go through parsers that decompress and build trees: a
crafted file can make them take gigabytes or run for ever. Each such file is
parsed by `storage.parse_worker` under rlimits (address space and CPU) and a
wall-clock timeout, so the worst a file can do is fail with its reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from dataclasses import dataclass

from storage.chunking import Block
from storage.loaders import UnreadableFileError

SANDBOXED_FORMATS = frozenset({"pdf", "docx", "html"})


@dataclass(frozen=True)
class ParseLimits:
    """Per-file limits of the parser process (PARSE_MEMORY_MB, PARSE_TIMEOUT_SECONDS) and
    its CPU priority (INGEST_NICE: it yields to the serving process)."""

    memory_mb: int = 768
    timeout_s: float = 60.0
    nice: int = 0


@dataclass(frozen=True)
class ParsedFile:
    """What the parser process sent back."""

    blocks: list[Block]
    pages: int | None
    url: str | None


async def parse_isolated(data: bytes, fmt: str, limits: ParseLimits) -> ParsedFile:
    """Blocks, page count and canonical URL of `data`; UnreadableFileError with the reason."""
    cpu_s = max(1, int(limits.timeout_s))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "storage.parse_worker",
        fmt,
        str(limits.memory_mb),
        str(cpu_s),
        str(limits.nice),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(data), limits.timeout_s)
    except TimeoutError:
        raise UnreadableFileError(
            f"reading it took longer than {limits.timeout_s:g} s (PARSE_TIMEOUT_SECONDS)"
        ) from None
    finally:
        if process.returncode is None:  # timed out or cancelled: the parser must not linger
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    if process.returncode != 0:
        raise UnreadableFileError(_died(process.returncode or 0, err, limits))
    try:
        result = json.loads(out)
    except json.JSONDecodeError:
        raise UnreadableFileError("the parser sent no usable result") from None
    if "error" in result:
        raise UnreadableFileError(str(result["error"]))
    blocks = [Block(text, page, heading) for text, page, heading in result["blocks"]]
    return ParsedFile(blocks, result.get("pages"), result.get("url"))


def _died(code: int, stderr: bytes, limits: ParseLimits) -> str:
    """Why the parser process ended without a result, in words an admin can act on."""
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        return f"reading it took longer than {limits.timeout_s:g} s (PARSE_TIMEOUT_SECONDS)"
    if b"MemoryError" in stderr:
        return f"reading it needs more than {limits.memory_mb} MB of memory (PARSE_MEMORY_MB)"
    if code < 0:
        return f"the parser crashed on it (signal {-code})"
    return "the parser failed on it"
