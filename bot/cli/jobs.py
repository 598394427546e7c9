"""`ragbot upload` (queue files for the job worker), `ragbot jobs` and `ragbot held`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bot.cli.admin import operator
from bot.cli.base import app, fail, run, settings
from bot.cli.personal_data import bound_for, personal_data_report
from storage.upload_policy import DEFAULT_COLLECTION
from textkit.personal_data import Findings


@app.command()
def upload(
    path: Annotated[Path, typer.Argument(help="The file to add.")],
    title: Annotated[str | None, typer.Option(help="Title (default: the file name).")] = None,
    collection: Annotated[str, typer.Option(help="Who may read it.")] = DEFAULT_COLLECTION,
    allow_personal_data: Annotated[
        bool,
        typer.Option(
            "--allow-personal-data",
            help="Queue it even if it holds personal data (e-mail, phone, ID numbers) for a"
            " collection citizens or guests read (public, TELEGRAM_COLLECTIONS,"
            " SLACK_GUEST_COLLECTIONS).",
        ),
    ] = False,
) -> None:
    """Queue a file for the job worker (`ragbot serve` or `ragbot worker` ingests it).

    A file for a collection citizens or guests read (TELEGRAM_COLLECTIONS,
    SLACK_GUEST_COLLECTIONS) that holds personal data is refused here, with what
    was found, unless --allow-personal-data is given.
    """
    if not path.is_file():
        fail(f"no such file: {path}")
    from bot.app.runtime import open_runtime
    from bot.app.uploads import upload_policy
    from bot.core.admin.audit import AdminInputError  # with the admin parts, not at start

    found: list[Findings] = []
    policy = upload_policy(settings())  # as the runtime builds it: what outside readers see

    async def go() -> int:
        async with open_runtime(settings()) as rt:
            jobs = rt.job_queue()
            await jobs.open()
            try:
                # refused on its size on disk before it is read; knowledge.upload checks the rest
                problem = rt.upload_policy.before_reading(path.stat().st_size, collection)
                if problem:
                    raise AdminInputError(problem)
                data = path.read_bytes()
                if policy.screens(collection) and not allow_personal_data:
                    findings = await rt.ingestion.personal_data(path.name, data, title)
                    if findings is not None:
                        found.append(findings)
                        return 0
                knowledge = rt.admin_knowledge(jobs)
                return await knowledge.upload(
                    operator(),
                    path.name,
                    data,
                    title,
                    collection,
                    # screened here (or the operator allowed it): the job need not again
                    allow_personal_data=True,
                )
            finally:
                await jobs.close()

    try:
        upload_id = run(go, expected=(AdminInputError,))
    except AdminInputError as exc:
        fail(f"{path}: {exc}")
    if found:
        bound = bound_for(collection, policy.readers(collection))
        report = personal_data_report(str(path), found[0], bound)
        typer.secho(report, fg=typer.colors.RED, err=True)
        raise typer.Exit(1)
    typer.echo(f"queued upload #{upload_id}; `ragbot jobs` shows its result")


@app.command()
def jobs(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    limit: Annotated[int, typer.Option(min=1, max=500)] = 20,
) -> None:
    """Recent uploads and what their jobs did.

    Stranded uploads (queued or running for over a minute with no job to move them
    on) are listed however old, marked `stranded` (a JSON field on every row) and
    counted on a line of their own; the job worker re-queues the queued ones.
    """
    from bot.app.runtime import open_runtime

    async def go() -> list[dict[str, Any]]:
        async with open_runtime(settings()) as rt:
            return await rt.admin_knowledge().uploads(operator(), limit)

    rows = run(go)
    if as_json:
        print(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no uploads yet")
        return
    columns = ("id", "file", "title", "collection", "status", "chunks", "reason", "received")
    table = Table(*columns)
    for r in rows:
        cells = {c: str(r[c] if r[c] is not None else "") for c in columns}
        if r["stranded"]:
            cells["status"] += " (stranded)"
        table.add_row(*(escape(cells[c]) for c in columns))
    Console().print(table)
    stranded = [r for r in rows if r["stranded"]]
    if stranded:
        ids = ", ".join(f"#{r['id']}" for r in stranded)
        typer.secho(
            f"stranded: {len(stranded)} upload(s) with no job for over a minute ({ids});"
            " a running job worker re-queues the queued ones, retention deletes the rest",
            fg=typer.colors.YELLOW,
        )


@app.command()
def held(
    action: Annotated[str, typer.Argument(help="publish or cancel")],
    upload_id: Annotated[int, typer.Argument(help="The held upload's id (`ragbot jobs`).")],
) -> None:
    """Publish anyway, or cancel, an upload held for personal data (audited).

    The held notice's buttons reach the admin who sent the file only when a chat
    adapter runs beside the job worker; this settles it from the console either way.
    """
    if action not in ("publish", "cancel"):
        fail("the action is publish or cancel")
    from bot.app.runtime import open_runtime
    from bot.core.admin.audit import AdminInputError  # with the admin parts, not at start

    async def go() -> str | None:
        async with open_runtime(settings()) as rt:
            queue = rt.job_queue()
            await queue.open()
            try:
                knowledge = rt.admin_knowledge(queue)
                publish = action == "publish"
                held = await knowledge.settle_held(operator(), upload_id, publish, any_owner=True)
                return None if held is None else ("queued" if publish else "cancelled")
            finally:
                await queue.close()

    try:
        status = run(go, expected=(AdminInputError,))
    except AdminInputError as exc:
        fail(str(exc))
    if status is None:
        fail(f"no held upload #{upload_id} (`ragbot jobs` lists uploads and their status)", code=1)
    typer.echo(f"upload #{upload_id}: {status}")
