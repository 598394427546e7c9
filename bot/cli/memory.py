"""`ragbot memory list` and `ragbot memory forget`: the answer memory, for the operator."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from bot.cli.admin import operator
from bot.cli.base import app, fail, run, settings

memory_app = typer.Typer(help="Remembered answers (MEMORY_ENABLED): list or forget them.")
app.add_typer(memory_app, name="memory")


@memory_app.command("list")
def list_entries(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    limit: Annotated[int, typer.Option(min=1, max=10_000)] = 100,
) -> None:
    """Remembered answers, newest first: question, cited documents, hits, helpful votes."""
    from bot.app.runtime import open_runtime

    async def go() -> list[dict[str, Any]]:
        async with open_runtime(settings()) as rt:
            return await rt.admin_memory().memory_entries(operator(), limit)

    entries = run(go)
    if as_json:
        typer.echo(json.dumps(entries, ensure_ascii=False, indent=2))
        return
    if not settings().memory_enabled:
        typer.echo("the answer memory is off (MEMORY_ENABLED=false)")
    if not entries:
        typer.echo("no remembered answers yet")
    for e in entries:
        sources = ", ".join(e["documents"] + e["forms"])
        state = "" if e["valid"] else " [stale: not served]"
        typer.echo(
            f"#{e['id']} {e['question']} — {sources} ({e['hits']} hits,"
            f" {e['helpful']} helpful, {e['language']}){state}"
        )


@memory_app.command()
def forget(
    entry: Annotated[str | None, typer.Argument(help="The entry's id (see `memory list`).")] = None,
    all_entries: Annotated[bool, typer.Option("--all", help="Forget every entry.")] = False,
) -> None:
    """Forget one remembered answer by id, or all of them with --all."""
    from bot.app.runtime import open_runtime

    if (entry is None) == (not all_entries) or (entry is not None and not entry.isdigit()):
        fail("give an entry id (`ragbot memory list` shows them) or --all")
    target = None if all_entries else int(str(entry))

    async def go() -> int:
        async with open_runtime(settings()) as rt:
            return await rt.admin_memory().forget_memory(operator(), target)

    removed = run(go)
    if target is not None and removed == 0:
        fail(f"there is no remembered answer #{target}", code=1)
    typer.echo(f"forgot {removed} remembered answer{'s' if removed != 1 else ''}")
