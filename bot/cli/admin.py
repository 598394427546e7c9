"""Admin commands: database migrations and forms."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bot.cli.base import app, fail, run, settings

if TYPE_CHECKING:
    from bot.core.admin.audit import Actor

db_app = typer.Typer(help="Database migrations.", no_args_is_help=True)
forms_app = typer.Typer(help="Form links and files.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(forms_app, name="forms")


def operator() -> Actor:
    """The person at the console: an admin, named by their login in the audit log."""
    import getpass

    from bot.core.admin.audit import Actor

    return Actor("cli", getpass.getuser(), is_admin=True)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply all migrations (also done automatically by every command)."""

    from bot.app.database import prepare_database
    from storage import db as dbmod

    async def go() -> str | None:
        url, _server = await asyncio.to_thread(prepare_database, settings())
        return await asyncio.to_thread(dbmod.current_revision, url)

    typer.echo(f"database at revision {run(go)}")


@db_app.command("current")
def db_current() -> None:
    """Show the database's migration revision."""
    from storage import db as dbmod

    async def go() -> str | None:
        cfg = settings()
        url, _server = await asyncio.to_thread(
            dbmod.resolve_database_url,
            cfg.database_dsn,
            cfg.data_dir,
            cfg.embedded_pg_shared_buffers_mb,
        )
        return await asyncio.to_thread(dbmod.current_revision, url)

    typer.echo(f"database at revision {run(go) or '(empty)'}")


@forms_app.command("add")
def forms_add(
    name: str,
    url: Annotated[str | None, typer.Option(help="Where the form is online.")] = None,
    file: Annotated[Path | None, typer.Option(help="The form file to send to users.")] = None,
    alias: Annotated[list[str] | None, typer.Option(help="Another name (repeatable).")] = None,
    language: Annotated[str | None, typer.Option(help="en, zh-hant or zh-hans.")] = None,
    collection: Annotated[
        str, typer.Option(help="Who may see it (public, internal, …).")
    ] = "public",
) -> None:
    """Add a form (or replace the one with the same name)."""
    from bot.app.runtime import open_runtime
    from storage.forms import FormFile, InvalidFormError

    attachment = None
    if file is not None:
        if not file.is_file():
            fail(f"no such file: {file}")
        attachment = FormFile(file.name, file.read_bytes())

    async def go() -> bool:
        async with open_runtime(settings()) as rt:
            return await rt.admin_knowledge().add_form(
                operator(), name, url, attachment, alias or (), language, collection
            )

    try:
        new = run(go, expected=(InvalidFormError,))
    except InvalidFormError as exc:
        fail(str(exc))
    typer.echo(f"{'added' if new else 'replaced'} form {name!r}")


@forms_app.command("list")
def forms_list(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List forms."""
    from bot.app.runtime import open_runtime

    async def go() -> list[dict[str, Any]]:
        async with open_runtime(settings()) as rt:
            return await rt.admin_knowledge().list_forms(operator())

    rows = run(go)
    if as_json:
        print(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        typer.echo("no forms yet: add one with `ragbot forms add NAME --url URL`")
        return
    table = Table("name", "url", "aliases", "language", "file")
    for r in rows:
        # escaped: names and aliases are user text, and rich would read "[x]" as markup
        table.add_row(
            escape(str(r["name"])),
            escape(str(r["url"] or "")),
            escape(", ".join(r["aliases"])),
            str(r["language"] or ""),
            escape(str(r["file"] or "")),
        )
    Console().print(table)


@forms_app.command("delete")
def forms_delete(name: str) -> None:
    """Delete a form by name."""
    from bot.app.runtime import open_runtime

    async def go() -> bool:
        async with open_runtime(settings()) as rt:
            return await rt.admin_knowledge().delete_form(operator(), name)

    if not run(go):
        fail(f"no form named {name!r} (see `ragbot forms list`)", code=1)
    typer.echo(f"deleted form {name!r}")
