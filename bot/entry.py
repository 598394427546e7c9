"""The `ragbot` console script's entry point: the command line is imported when it runs.

Worker processes started with `spawn` (ingestion, turns) first import the script
that started their parent. Pointing the script here rather than at `bot.cli`
spares each of them the command line's imports (about 2 s of CPU a worker).
"""

from __future__ import annotations


def main() -> None:
    """Run the `ragbot` command line."""
    from bot.cli import main as run_cli

    run_cli()
