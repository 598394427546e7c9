"""The parser process: reads one file on stdin, writes its text blocks as JSON on stdout.

Run by storage.sandbox as `python -m storage.parse_worker FORMAT MEMORY_MB CPU_S [NICE]`.
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
    data = sys.stdin.buffer.read()
    from storage.loaders import UnreadableFileError, canonical_url, load_blocks

    try:
        blocks, pages = load_blocks(data, fmt)
        url = canonical_url(data) if fmt == "html" else None
        out: dict[str, object] = {
            "blocks": [[b.text, b.page, b.heading] for b in blocks],
            "pages": pages,
            "url": url,
        }
    except UnreadableFileError as exc:
        out = {"error": str(exc)}
    except MemoryError:
        out = {"error": f"reading it needs more than {memory_mb} MB of memory (PARSE_MEMORY_MB)"}
    except RecursionError:
        out = {"error": "its structure is nested too deeply to read"}
    except Exception as exc:  # any other parser failure: the file, not the process, is bad
        out = {"error": f"the {fmt.upper()} is corrupt or unreadable ({type(exc).__name__})"}
    sys.stdout.write(json.dumps(out, ensure_ascii=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
