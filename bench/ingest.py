"""Ingestion benchmark: `ragbot ingest` on folders of evaluation passages, files to searchable.

Usage: .venv/bin/python -m bench.ingest [--passages 1000] [--baseline ROOT] [--processes 0 1 2]
Every passage of DRCD (zh-hant, the first `--passages`), XQuAD en and XQuAD zh
becomes a .txt file named after it; each run ingests the three folders into a
fresh database with the real command (parsing, chunking, keyword tokens,
embeddings, storage; collection `internal`, so no personal-data screening) and
counts the chunks stored. `--baseline ROOT` also runs the command of another
checkout (for example the code before this change, cloned to ROOT) first, in the
same run. Prints each run's time (the whole command, start-up included) and
chunks/s, and writes bench/results/ingest.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

from bench.common import CORPORA, connect, fresh_database, load_squad, print_table, write_json
from bench.serving import ragbot_command


def write_folders(root: Path, passages: int) -> list[Path]:
    """One folder per corpus, one .txt file per passage (its title as the file name)."""
    folders = []
    for name, path in CORPORA.items():
        found, _ = load_squad(path)
        chosen = sorted(found)[:passages] if name.startswith("drcd") else sorted(found)
        folder = root / name.split(" ")[0]
        folder.mkdir(parents=True)
        for n, pid in enumerate(chosen):
            # the corpus in the name: XQuAD en and zh share titles, and a title is a document
            safe = re.sub(r"[^\w§ -]", "_", pid)[:80]
            (folder / f"{folder.name} {n:05d} {safe}.txt").write_text(found[pid], "utf-8")
        folders.append(folder)
    return folders


async def chunk_count(url: str) -> int:
    db = connect(url)
    try:
        async with db.sessions() as session:
            return int((await session.execute(text("SELECT count(*) FROM chunks"))).scalar_one())
    finally:
        await db.dispose()


async def run_once(
    index: int, label: str, root: Path | None, folders: list[Path], args: list[str]
) -> dict[str, Any]:
    """`ragbot ingest` of every folder into a fresh database; its time and chunks/s."""
    url, _ = fresh_database(f"bench_ingest_{index}")  # replaced by the next run of the bench
    env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "ERROR", "CI": "true"}
    folder_args = [*map(str, folders), "--collection", "internal", *args]
    command = [*ragbot_command(str(root) if root else None), "ingest", *folder_args]
    if root is not None:  # the other checkout's code, with this environment's packages
        env["PYTHONPATH"] = str(root)
    begin = time.perf_counter()
    done = await asyncio.to_thread(
        subprocess.run, command, env=env, capture_output=True, text=True, cwd=root or Path.cwd()
    )
    seconds = time.perf_counter() - begin
    if done.returncode != 0:
        print(f"{label}: exit {done.returncode}\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}")
    chunks = await chunk_count(url)
    return {"label": label, "seconds": seconds, "chunks": chunks, "chunks_per_s": chunks / seconds}


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folders = write_folders(Path(tmp), args.passages)
        files = sum(len(list(f.iterdir())) for f in folders)
        runs: list[tuple[str, Path | None, list[str]]] = []
        if args.baseline:
            runs.append((f"before ({args.baseline})", Path(args.baseline), []))
        for n in args.processes:
            runs.append((f"--processes {n}", None, ["--processes", str(n)]))
        results = [
            await run_once(n, label, root, folders, extra)
            for n, (label, root, extra) in enumerate(runs)
        ]
    table = print_table(
        ["run", "files", "chunks", "seconds (whole command)", "chunks/s"],
        [[r["label"], files, r["chunks"], r["seconds"], r["chunks_per_s"]] for r in results],
    )
    print(f"wrote {write_json('ingest', {'table': table, 'runs': results, 'files': files})}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=1000, help="DRCD passages (XQuAD: all)")
    parser.add_argument("--baseline", help="another checkout to run first (the code before)")
    parser.add_argument("--processes", type=int, nargs="+", default=[0, 1, 2])
    asyncio.run(main(parser.parse_args()))
