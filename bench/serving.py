"""Plumbing of the benchmarks that drive `ragbot serve` as a subprocess (Slack, Telegram).

A DRCD knowledge base in a fresh database, the server started with the fake
LLM and a platform's settings, its health awaited, and its errors read back
when it stops.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from bench.common import CORPORA, connect, fresh_database, load_squad
from bench.searching import ingest_corpus
from bot.settings import Settings

RAGBOT = shutil.which("ragbot", path=str(Path(sys.executable).parent)) or "ragbot"


def ragbot_command(root: str | None = None) -> list[str]:
    """The `ragbot` console script of the checkout at `root` (this environment's when None).

    Another checkout's script is written as pip writes one, from that checkout's own
    entry point: worker processes started with spawn import the script their parent
    was started with, so a baseline must run with its own.
    """
    if root is None:
        return [RAGBOT]
    pyproject = tomllib.loads((Path(root) / "pyproject.toml").read_text("utf-8"))
    module, _, function = pyproject["project"]["scripts"]["ragbot"].partition(":")
    # a directory of its own: a script's directory comes first on its sys.path
    script = Path(tempfile.mkdtemp(prefix="ragbot-baseline-")) / "ragbot.py"
    script.write_text(
        f"import sys\nfrom {module} import {function}\n"
        f"if __name__ == '__main__':\n    sys.exit({function}())\n"
    )
    return [sys.executable, str(script)]


def free_port() -> int:
    """A local TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def drcd_knowledge_base(name: str, passages: int) -> tuple[str, list[str]]:
    """A fresh database `name` holding the first `passages` DRCD passages; (URL, questions)."""
    all_passages, all_questions = load_squad(CORPORA["drcd (zh-hant)"])
    kb = {pid: all_passages[pid] for pid in sorted(all_passages)[:passages]}
    url, _server = fresh_database(name)
    db = connect(url)
    await ingest_corpus(db, kb, Settings(_env_file=None, DATABASE_URL=url))  # type: ignore[call-arg]
    await db.dispose()
    # vacuumed and analysed now: otherwise autovacuum does it after the ingestion, during
    # the first measured run, which then competes for the cores (the first of two runs of
    # the same code was the slower one, by up to 0.3 s in the opening burst)
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("VACUUM ANALYZE"))
    engine.dispose()
    return url, [q.text for q in all_questions if q.passage in kb]


def start_serve(
    port: int, database_url: str, llm_url: str, **settings: str
) -> subprocess.Popen[str]:
    """`ragbot serve` on `port` with the fake LLM, no rate limit, and `settings` (with
    PYTHONPATH, the console script of the checkout it names)."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "LLM_BASE_URL": llm_url,
        "LLM_MODEL": "fake",
        "LLM_API_KEY": "bench",
        "RATE_LIMIT_PER_MINUTE": "0",
        "LOG_LEVEL": "ERROR",
        **settings,
    }
    return subprocess.Popen(
        [*ragbot_command(settings.get("PYTHONPATH")), "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far (Linux /proc)."""
    stat = _stat(Path(f"/proc/{pid}/stat"))
    if stat is None:
        raise ProcessLookupError(pid)
    return _cpu(stat[1])


def _stat(path: Path) -> tuple[str, list[str]] | None:
    """A process's name and the fields after it (None: gone meanwhile)."""
    try:
        head, _, rest = path.read_text().rpartition(")")
    except OSError:
        return None
    return head.partition("(")[2], rest.split()


def _cpu(fields: list[str]) -> float:
    """User + system CPU seconds from a stat line's fields after the name."""
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_cpu_seconds() -> float:
    """CPU time the live Postgres processes on this machine have used so far: every
    server's (on a development machine, the benchmark's alone), and only while they
    live (a backend that exits takes its CPU with it; the serving pools keep theirs)."""
    stats = (_stat(path) for path in Path("/proc").glob("[0-9]*/stat"))
    return sum(_cpu(fields) for name, fields in filter(None, stats) if name == "postgres")


def harness_cpu_seconds() -> float:
    """CPU time of this process, all threads: the benchmark's client and its fakes
    (on a real deployment the platform's and the model's servers are elsewhere)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_busy_seconds() -> float:
    """CPU time all cores have been busy so far (/proc/stat, idle and iowait excluded)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds(pid: int) -> float:
    """CPU time its live child processes (the turn workers) have used so far."""
    stats = (_stat(path) for path in Path("/proc").glob("[0-9]*/stat"))
    return sum(_cpu(fields) for _, fields in filter(None, stats) if int(fields[1]) == pid)


def stop_serve(serve: subprocess.Popen[str]) -> None:
    """SIGTERM, wait, and show what the server said on stderr (errors only, at LOG_LEVEL=ERROR)."""
    serve.terminate()
    _, errors = serve.communicate(timeout=60)
    if errors.strip():
        print(f"ragbot serve said:\n{errors.strip()[-2000:]}")


async def wait_healthy(client: Any, tries: int = 600) -> None:
    """Wait until `ragbot serve` behind `client` (an httpx.AsyncClient) answers /healthz 200."""
    for _ in range(tries):
        try:
            if (await client.get("/healthz")).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        await asyncio.sleep(0.2)
    raise RuntimeError("ragbot serve did not become healthy")


def add_baseline_argument(parser: argparse.ArgumentParser) -> None:
    """`--baseline ROOT`: another checkout whose `ragbot serve` runs first, in the same run."""
    parser.add_argument(
        "--baseline", help="another checkout's root: its `ragbot serve` runs first (PYTHONPATH)"
    )


def baseline_code(root: str) -> dict[str, str]:
    """The environment that makes `start_serve` run the checkout at `root`."""
    return {"PYTHONPATH": root}
