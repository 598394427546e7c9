"""`ragbot sources`: websites, folders and Confluence spaces that sync on a schedule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.admin import operator
from bot.cli.base import app, fail, run, settings
from storage.sources.report import result_text
from storage.upload_policy import DEFAULT_COLLECTION

if TYPE_CHECKING:
    from storage.sources.sync import SyncReport

sources_app = typer.Typer(
    help="Websites, folders and Confluence spaces that sync on a schedule (docs/sources.md).",
    no_args_is_help=True,
)
add_app = typer.Typer(
    help="Add a source (a website, a folder or a Confluence space).", no_args_is_help=True
)
app.add_typer(sources_app, name="sources")
sources_app.add_typer(add_app, name="add")

NAME = typer.Option(help="The source's name (default: the URL's host and path, the folder's).")
COLLECTION = typer.Option(help="Who may read its documents: public, internal, …")
EVERY = typer.Option(help="How often it syncs while `ragbot serve` runs: 30m, 6h, 1d, 1w.")


def _add(
    kind: str,
    location: str,
    name: str | None,
    collection: str,
    every: str,
    space: str | None = None,
    **extra: int,
) -> None:
    from bot.app.runtime import open_runtime
    from bot.core.admin.audit import AdminInputError
    from bot.core.admin.sources import every_seconds, every_text

    try:
        every_s = every_seconds(every)
    except AdminInputError as exc:
        fail(str(exc))

    async def go() -> str:
        async with open_runtime(settings()) as rt:
            source = await rt.admin_sources().add(
                operator(),
                kind,
                location,
                name=name,
                collection=collection,
                every_s=every_s,
                space=space,
                **extra,
            )
            return source.name

    try:
        added = run(go, expected=(AdminInputError,))
    except AdminInputError as exc:
        fail(str(exc))
    typer.echo(
        f"added {kind} source {added!r} → {collection}, every {every_text(every_s)};"
        f" `ragbot sources sync {added}` syncs it now"
    )


@add_app.command("web")
def add_web(
    url: Annotated[str, typer.Argument(help="The site's start URL (its host and path bound it).")],
    name: Annotated[str | None, NAME] = None,
    collection: Annotated[str, COLLECTION] = DEFAULT_COLLECTION,
    every: Annotated[str, EVERY] = "1d",
    depth: Annotated[
        int, typer.Option(min=0, max=20, help="Links followed from the URL (no sitemap).")
    ] = 2,
    max_pages: Annotated[int, typer.Option(min=1, max=100_000, help="Pages read at most.")] = 500,
) -> None:
    """A website: its sitemap's pages (else a crawl), robots.txt obeyed, main text only."""
    _add("web", url, name, collection, every, depth=depth, max_pages=max_pages)


@add_app.command("folder")
def add_folder(
    path: Annotated[Path, typer.Argument(help="The folder (read recursively).")],
    name: Annotated[str | None, NAME] = None,
    collection: Annotated[str, COLLECTION] = DEFAULT_COLLECTION,
    every: Annotated[str, EVERY] = "1d",
) -> None:
    """A folder: every file below it that `ragbot ingest` reads (PDF, DOCX, TXT, MD, HTML)."""
    _add("folder", str(path), name, collection, every)


@add_app.command("confluence")
def add_confluence(
    url: Annotated[
        str, typer.Argument(help="The site's base URL, e.g. https://example.atlassian.net/wiki.")
    ],
    space: Annotated[str, typer.Option(help="The space's key (e.g. ENG).")],
    name: Annotated[str | None, NAME] = None,
    collection: Annotated[str, COLLECTION] = DEFAULT_COLLECTION,
    every: Annotated[str, EVERY] = "1d",
    max_pages: Annotated[int, typer.Option(min=1, max=100_000, help="Pages read at most.")] = 500,
) -> None:
    """A Confluence space (Cloud or Data Center): its pages, each one document.

    The login comes from CONFLUENCE_USER + CONFLUENCE_API_TOKEN (Cloud) or
    CONFLUENCE_TOKEN (Data Center).
    """
    _add("confluence", url, name, collection, every, space=space, max_pages=max_pages)


@sources_app.command("list")
def sources_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Sources with their schedule, documents and last sync's result."""
    from bot.app.runtime import open_runtime

    async def go() -> list[dict[str, Any]]:
        async with open_runtime(settings()) as rt:
            return await rt.admin_sources().list_sources(operator())

    rows = run(go)
    if as_json:
        print(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no sources yet: add one with `ragbot sources add web URL` or `add folder PATH`")
        return
    # a block per source, not a table: the last result is a sentence a narrow table breaks
    for r in rows:
        typer.echo(
            f"{r['name']}  {r['kind']} {r['location']} → {r['collection']},"
            f" every {r['schedule']}, {r['documents']} documents"
        )
        typer.echo(f"  last sync {r['last_sync'] or 'never'}, next sync {r['next_sync']}")
        typer.echo(f"  last result: {result_text(r['last_result'])}")


@sources_app.command("sync")
def sources_sync(
    name: Annotated[str | None, typer.Argument(help="The source (default: all).")] = None,
) -> None:
    """Sync now: only what changed is ingested again; what is gone twice is removed."""
    from bot.app.runtime import open_runtime
    from bot.core.admin.audit import AdminInputError

    async def go() -> list[tuple[str, SyncReport]]:
        async with open_runtime(settings()) as rt:
            return await rt.admin_sources().sync(operator(), name)

    try:
        done = run(go, expected=(AdminInputError,))
    except AdminInputError as exc:
        fail(str(exc), code=1)
    if not done:
        typer.echo("no sources yet: add one with `ragbot sources add web URL` or `add folder PATH`")
    for source, report in done:
        line = f"{source}: {result_text(report.as_json())} in {report.seconds:.1f} s"
        typer.secho(line, fg=typer.colors.RED if report.error else None)
        for failed in report.failed[:20]:
            typer.secho(f"  failed {failed['item']}: {failed['reason']}", fg=typer.colors.RED)
    if any(report.error or report.failed for _, report in done):
        raise typer.Exit(1)


@sources_app.command("remove")
def sources_remove(
    name: Annotated[str, typer.Argument(help="The source.")],
    keep_documents: Annotated[
        bool,
        typer.Option("--keep-documents", help="Keep its documents (as ordinary documents)."),
    ] = False,
) -> None:
    """Remove a source and the documents it made (unless --keep-documents)."""
    from bot.app.runtime import open_runtime
    from bot.core.admin.audit import AdminInputError

    async def go() -> int:
        async with open_runtime(settings()) as rt:
            return await rt.admin_sources().remove(operator(), name, keep_documents)

    try:
        removed = run(go, expected=(AdminInputError,))
    except AdminInputError as exc:
        fail(str(exc), code=1)
    kept = "its documents kept" if keep_documents else f"{removed} documents removed"
    typer.echo(f"removed source {name!r} ({kept})")
