"""`ragbot traces`, `stats`, `gaps` and `purge`: what happened, in numbers; what was missing;
retention."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from bot.cli.admin import operator
from bot.cli.base import app, run, settings


@app.command()
def traces(
    last: Annotated[int, typer.Option("--last", min=1, max=1000, help="How many turns.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Recent turns: question as stored (masked), answer, intent, path, timings, LLM calls."""
    from bot.app.runtime import open_runtime

    async def go() -> list[dict[str, Any]]:
        async with open_runtime(settings(), check_index=False) as rt:
            return await rt.admin_reports().traces(operator(), last)

    rows = run(go)
    if as_json:
        print(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no turns yet")
        return
    for r in rows:
        typer.echo("\n".join(_turn_lines(r)) + "\n")


def _turn_lines(turn: dict[str, Any]) -> list[str]:
    """One turn as a few plain lines (readable at any terminal width)."""
    total = turn["timings_ms"].get("total")
    head = [
        turn["at"],
        turn["platform"],
        turn["trace_id"] or "",
        turn["intent"] or ("unfinished" if turn["answer"] is None else ""),
        turn["language"] or "",
        f"{total:.0f} ms" if total is not None else "",
        f"{turn['llm_calls']} LLM calls",
    ]
    lines = ["  ".join(part for part in head if part)]
    lines.append(f"  Q: {_clip(turn['question'])}")
    if turn["answer"] is not None:
        lines.append(f"  A: {_clip(turn['answer'])}")
    if turn["decision_path"]:
        lines.append("  path: " + " → ".join(turn["decision_path"]))
    if turn["error"]:
        lines.append(f"  error: {turn['error']}")
    if turn.get("delivery_failed"):
        lines.append(f"  delivery failed: {turn['delivery_failed']}")
    return lines


def _clip(text: str, width: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@app.command()
def stats(
    days: Annotated[int, typer.Option(min=1, max=3650, help="The period, in days.")] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Knowledge-base counts and the period's volumes, intents, languages, refusal rate,
    feedback and latency percentiles; then the inbox (messages waiting for an answer,
    the oldest one's age) and the outbox (sends waiting, retrying, failed), as now."""
    from bot.app.runtime import open_runtime

    async def go() -> dict[str, Any]:
        async with open_runtime(settings(), check_index=False) as rt:
            return await rt.admin_reports().stats(operator(), days)

    report = run(go)
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
        return
    from bot.core.admin.commands import stats_text  # with the admin parts, not at start

    typer.echo(stats_text(report))


@app.command()
def gaps(
    days: Annotated[int, typer.Option(min=1, max=3650, help="The period, in days.")] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """What the documents did not answer: refused and handed-off questions grouped by topic
    (paraphrases in any language together), largest and newest first, each with its
    count, languages, example questions and whether staff answered it."""
    from bot.app.runtime import open_runtime

    async def go() -> dict[str, Any]:
        async with open_runtime(settings(), check_index=False) as rt:
            return await rt.admin_reports().gaps(operator(), days)

    report = run(go)
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
        return
    from bot.core.admin.commands import gaps_text  # with the admin parts, not at start

    typer.echo(gaps_text(report, limit=50))


@app.command()
def purge(
    days: Annotated[
        int | None, typer.Option(min=1, help="Keep this many days (default RETENTION_DAYS).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Delete conversations, feedback, audit rows and chat state past retention."""
    from bot.app.runtime import open_runtime

    cfg = settings()
    keep = days or cfg.retention_days

    async def go() -> dict[str, int]:
        from bot.core.admin.retention import purge_expired  # imports the conversation side

        async with open_runtime(cfg, check_index=False) as rt:
            return await purge_expired(rt.db, keep)

    deleted = run(go)
    if as_json:
        print(json.dumps({"retention_days": keep, "deleted": deleted}))
        return
    typer.echo(
        f"kept the last {keep} days; deleted "
        + ", ".join(f"{n} {table.replace('_', ' ')}" for table, n in deleted.items())
    )
