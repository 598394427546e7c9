"""`ragbot doctor`: check the configured LLM endpoint and say plainly what is wrong."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from bot.cli.base import app, run, settings
from bot.settings import reveal

if TYPE_CHECKING:
    from bot.cli.llm_probe import Finding

_LABELS = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}


@app.command()
def doctor() -> None:
    """Check the LLM endpoint with real requests: reachable, model, format, token cap, latency.

    Exit 1 only when the model cannot be used (nothing listening, key refused,
    every chat request failing); warnings do not fail.
    """
    from bot.cli.llm_probe import probe_llm  # httpx and the model's formats: this command only

    cfg = settings()
    key = reveal(cfg.llm_api_key)

    async def go() -> list[Finding]:
        return await probe_llm(cfg.llm_base_url, key, cfg.llm_model, timeout=cfg.llm_timeout_s)

    findings = run(go)
    for f in findings:
        typer.echo(f"{_LABELS[f.level]} {f.text}")
    if not all(f.ok for f in findings):
        raise typer.Exit(1)
