"""`ragbot doctor`: check the LLM endpoint (and any reranker and transcription endpoint) and say
plainly what is wrong."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from bot.cli.base import app, run, settings
from bot.settings import reveal

if TYPE_CHECKING:
    from bot.cli.llm_probe import Finding

_LABELS = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
NO_PUBLIC_BASE_URL = (
    "PUBLIC_BASE_URL is not set: Slack and Telegram citations link only documents"
    " ingested with --url (the web chat links every source view)"
)
# a note, not a warning: the model is fine, but a refused asker has nowhere to turn
_NO_CONTACT = (
    "refusals carry no contact: set HANDOFF_CONTACT (a phone, mail or web address;"
    ' _EN/_ZH_HANT/_ZH_HANS per language), else they say "our service desk"'
)


@app.command()
def doctor() -> None:
    """Check the LLM endpoint with real requests: reachable, model, format, token cap, latency.

    With RERANK_BASE_URL set, also one rerank request (a reranker that cannot be
    used is a warning: turns go on without it); with STT_BASE_URL set, one
    transcription of a second of silence (a warning too: voice messages are declined,
    typed questions go on); with OIDC_ISSUER set, the identity provider's discovery
    document (a warning: admin API keys still sign in to the console). Notes a refusal
    with no contact (HANDOFF_CONTACT unset).
    Exit 1 only when the model
    cannot be used (nothing listening, key refused, every chat request
    failing); warnings do not fail.
    """
    # the probes (httpx, the model's formats, the reranker's client): this command only
    from bot.cli.llm_probe import probe_llm
    from bot.cli.oidc_probe import probe_oidc
    from bot.cli.rerank_probe import probe_reranker
    from bot.cli.stt_probe import probe_stt

    cfg = settings()
    key = reveal(cfg.llm_api_key)

    async def go() -> list[Finding]:
        found = await probe_llm(cfg.llm_base_url, key, cfg.llm_model, timeout=cfg.llm_timeout_s)
        if cfg.rerank_base_url:
            found += await probe_reranker(
                cfg.rerank_base_url,
                cfg.rerank_model,
                reveal(cfg.rerank_api_key),
                cfg.rerank_timeout_s,
            )
        if cfg.stt_base_url:
            found += await probe_stt(
                cfg.stt_base_url, cfg.stt_model, reveal(cfg.stt_api_key), cfg.stt_timeout_s
            )
        if cfg.oidc_issuer.strip():
            found += await probe_oidc(cfg)
        return found

    findings = run(go)
    for f in findings:
        typer.echo(f"{_LABELS[f.level]} {f.text}")
    if not cfg.public_base_url:  # a setting to mention, not a fault: it fails nothing
        typer.echo(f"note {NO_PUBLIC_BASE_URL}")
    if not cfg.handoff_contacts():  # a refusal then ends with "our service desk", no way to it
        typer.echo(f"note {_NO_CONTACT}")
    if not all(f.ok for f in findings):
        raise typer.Exit(1)
