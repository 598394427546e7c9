"""`/api/docs`: the API's endpoints as a plain page, from its OpenAPI schema.

No Swagger UI: FastAPI loads it from a CDN (a third-party script on the bot's
origin, and a blank page offline), and no installed package ships its files.
The page names no other host; the schema itself is at `/api/openapi.json`.
"""

from __future__ import annotations

from html import escape
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

SCHEMA_URL = "/api/openapi.json"
_METHODS = ("get", "post", "put", "patch", "delete")


def _rows(schema: dict[str, Any]) -> str:
    rows = []
    for path, operations in schema.get("paths", {}).items():
        for method in _METHODS:
            operation = operations.get(method)
            if operation is None:
                continue
            summary = operation.get("description") or operation.get("summary") or ""
            rows.append(
                f"<tr><td><code>{method.upper()}</code></td><td><code>{escape(path)}</code></td>"
                f"<td>{escape(summary.splitlines()[0] if summary else '')}</td></tr>"
            )
    return "\n".join(rows)


def page(schema: dict[str, Any]) -> str:
    """The docs page: each endpoint's method, path and first line, and the schema's link."""
    info = schema.get("info", {})
    title = escape(str(info.get("title", "API")))
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{escape(str(info.get('summary', '')))}</p>"
        f'<p>The OpenAPI schema: <a href="{SCHEMA_URL}">{SCHEMA_URL}</a>'
        " (open it in any OpenAPI viewer or client generator).</p>"
        f"<table><thead><tr><th>method</th><th>path</th><th>what it does</th></tr></thead>"
        f"<tbody>{_rows(schema)}</tbody></table></body></html>"
    )


def install(api: FastAPI, path: str = "/api/docs") -> None:
    """Serve the docs page at `path` (nothing it loads comes from elsewhere)."""

    async def docs() -> HTMLResponse:
        headers = {"Content-Security-Policy": "default-src 'none'"}
        return HTMLResponse(page(api.openapi()), headers=headers)

    api.add_api_route(path, docs, methods=["GET"], include_in_schema=False)
