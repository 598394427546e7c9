"""`ragbot serve` (chat adapters, job worker, health) and `ragbot worker` (jobs and health only)."""

from __future__ import annotations

from typing import Annotated

import typer

from bot.cli.base import app, run, settings


def _say(line: str) -> None:
    typer.echo(line, err=True)


def _run(host: str | None, port: int | None, *, chat: bool) -> None:
    from bot.app import lifecycle  # the whole serving side: only for these two commands

    cfg = settings()

    async def go() -> None:
        await lifecycle.run(cfg, host or cfg.host, port or cfg.port, chat=chat, say=_say)

    run(go)


HOST = typer.Option(help="Listen address (default RAGBOT_HOST).")
PORT = typer.Option(help="Listen port (default RAGBOT_PORT).")


@app.command()
def serve(
    host: Annotated[str | None, HOST] = None, port: Annotated[int | None, PORT] = None
) -> None:
    """Serve the configured chat adapters, the upload job worker and GET /healthz."""
    _run(host, port, chat=True)


@app.command()
def worker(
    host: Annotated[str | None, HOST] = None, port: Annotated[int | None, PORT] = None
) -> None:
    """Run only upload jobs (and GET /healthz): a second machine's share of the work."""
    _run(host, port, chat=False)
