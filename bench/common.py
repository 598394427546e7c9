"""Shared benchmark plumbing: eval sets, a fresh database per corpus, table printing."""

from __future__ import annotations

import json
import os
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from bot.settings import Settings
from storage import db as dbmod
from storage.db import Database
from storage.embedded_postgres import shared_buffers_mb, sqlalchemy_url, start_embedded_server

EVAL_DIR = Path(
    os.environ.get("RAGBOT_EVAL_DIR", Path(__file__).resolve().parents[2] / "shared" / "eval")
)
RESULTS_DIR = Path(__file__).resolve().parent / "results"
CORPORA = {
    "drcd (zh-hant)": EVAL_DIR / "drcd" / "DRCD_dev.json",
    "xquad.en (en)": EVAL_DIR / "xquad" / "xquad.en.json",
    "xquad.zh (zh-hans)": EVAL_DIR / "xquad" / "xquad.zh.json",
}


@dataclass(frozen=True)
class Question:
    """A question with its gold passage id and answer spans."""

    id: str
    text: str
    passage: str
    answers: tuple[str, ...]


def load_squad(path: Path) -> tuple[dict[str, str], list[Question]]:
    """Passages by document title and every question.

    A passage's title is its article's title and paragraph number ("梵文 §3"),
    as a real document would carry its subject in its title.
    """
    data = json.loads(path.read_text("utf-8"))["data"]
    passages: dict[str, str] = {}
    questions: list[Question] = []
    for article in data:
        for p, para in enumerate(article["paragraphs"]):
            pid = f"{article['title'].replace('_', ' ')} §{p + 1}"
            passages[pid] = para["context"]
            for qa in para["qas"]:
                answers = tuple(ans["text"] for ans in qa["answers"])
                questions.append(Question(qa["id"], qa["question"], pid, answers))
    return passages, questions


_servers: list[Any] = []  # embedded server handles, kept alive for the whole run


def admin_url() -> str:
    """The benchmark server's URL (DATABASE_URL, or an embedded server of its own)."""
    settings = Settings()
    if settings.database_dsn:
        return settings.database_dsn
    data_dir = Path(os.environ.get("RAGBOT_BENCH_DATA_DIR", "/tmp/ragbot-bench"))
    # the memory a deployment's embedded server gets (EMBEDDED_PG_SHARED_BUFFERS_MB)
    shared = shared_buffers_mb(settings.embedded_pg_shared_buffers_mb)
    server = start_embedded_server(data_dir, shared_buffers=shared)
    _servers.append(server)
    return sqlalchemy_url(server)


def fresh_database(name: str) -> tuple[str, Any]:
    """A new, migrated database `name` on the benchmark server."""
    base = admin_url()
    server = _servers[-1] if _servers else None
    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    url = dbmod.with_database(base, name)
    dbmod.upgrade(url)
    return url, server


def connect(url: str) -> Database:
    """An async Database for the benchmark."""
    return Database.connect(url, pool_size=2)


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) of values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def mean(values: list[float]) -> float:
    """Arithmetic mean (nan when empty)."""
    return statistics.fmean(values) if values else float("nan")


def print_table(headers: list[str], rows: list[list[Any]]) -> str:
    """Print a Markdown table and return it."""

    def fmt(v: Any) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    table = "\n".join(lines)
    print(table, flush=True)
    return table


def write_json(name: str, payload: Any) -> Path:
    """Write results to bench/results/NAME.json."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2), "utf-8")
    return path
