"""`ragbot apikey create|list|revoke`: the keys of the HTTP API (no key: the API is off)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from bot.cli.admin import operator
from bot.cli.base import app, fail, run, settings

apikey_app = typer.Typer(help="HTTP API keys: make, list or revoke them.", no_args_is_help=True)
app.add_typer(apikey_app, name="apikey")


@apikey_app.command()
def create(
    name: Annotated[str, typer.Option(help="Who the key is for (named in the audit log).")],
    collections: Annotated[
        str, typer.Option(help="What it reads, comma-separated: public or public,internal.")
    ],
    admin: Annotated[bool, typer.Option("--admin", help="May upload and delete.")] = False,
    rate: Annotated[
        int | None,
        typer.Option(help="Calls a minute; 0: no limit (default API_RATE_LIMIT_PER_MINUTE)."),
    ] = None,
) -> None:
    """Make a key and print it once (only its hash is kept: store it now)."""
    from bot.app.database import open_database
    from bot.core.admin.api_keys import ApiKeys, KeyInputError

    async def go() -> tuple[Any, str] | str:
        async with open_database(settings()) as db:
            try:
                return await ApiKeys(db).create(
                    name,
                    collections.split(","),
                    admin=admin,
                    rate_limit=rate,
                    by=operator().user_id,
                )
            except KeyInputError as exc:  # said in one line, not as an unexpected error
                return str(exc)

    made = run(go)
    if isinstance(made, str):
        fail(made)
        return
    row, key = made
    typer.echo(key)
    rights = "admin, " if row.admin else ""
    typer.echo(
        f"key {row.name!r}: reads {', '.join(row.collections)} ({rights}"
        f"{_rate(row.rate_limit, settings().api_rate_limit_per_minute)})."
        " Shown once: it cannot be read back.",
        err=True,
    )


@apikey_app.command("list")
def list_keys(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Every key: name, first characters, collections, rights, last use, revoked or not."""
    from bot.app.database import open_database
    from bot.core.admin.api_keys import ApiKeys

    async def go() -> list[Any]:
        async with open_database(settings()) as db:
            return await ApiKeys(db).list()

    rows = [
        {
            "name": r.name,
            "prefix": r.prefix,
            "collections": list(r.collections),
            "admin": r.admin,
            "rate_limit": r.rate_limit,
            "created": r.created_at.isoformat(timespec="seconds"),
            "last_used": r.last_used_at.isoformat(timespec="seconds") if r.last_used_at else None,
            "revoked": r.revoked_at.isoformat(timespec="seconds") if r.revoked_at else None,
        }
        for r in run(go)
    ]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        typer.echo("no API keys (the HTTP API is off): ragbot apikey create --name N ...")
    for r in rows:
        state = f"revoked {r['revoked']}" if r["revoked"] else f"last used {r['last_used'] or '-'}"
        rights = " admin" if r["admin"] else ""
        typer.echo(
            f"{r['name']}  {r['prefix']}…  {','.join(r['collections'])}{rights}"
            f"  rate {'default' if r['rate_limit'] is None else r['rate_limit']}  {state}"
        )


NAME_ARG = typer.Argument(help="The key's name (see `apikey list`).")


@apikey_app.command()
def revoke(name: Annotated[str, NAME_ARG]) -> None:
    """Revoke a key: calls with it fail within seconds (the name is not reused)."""
    from bot.app.database import open_database
    from bot.core.admin.api_keys import ApiKeys

    async def go() -> bool:
        async with open_database(settings()) as db:
            return await ApiKeys(db).revoke(name, by=operator().user_id)

    if not run(go):
        fail(f"no active key named {name!r}")
    typer.echo(f"revoked {name!r}")


def _rate(rate: int | None, default: int) -> str:
    chosen = default if rate is None else rate
    return "no rate limit" if chosen <= 0 else f"{chosen} calls a minute"
